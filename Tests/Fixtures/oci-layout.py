#!/usr/bin/env python3
"""An OCI image layout of one tiny image (one layer holding hello.txt), tagged TAG, in DIR.

    oci-layout.py DIR TAG      prints the manifest's digest

What RegistryClientTests pushes with skopeo. Standard library only; the same bytes every run.
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

directory, tag = sys.argv[1], sys.argv[2]
os.makedirs(directory + "/blobs/sha256", exist_ok=True)


def blob(data):
    digest = hashlib.sha256(data).hexdigest()
    with open(directory + "/blobs/sha256/" + digest, "wb") as file:
        file.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}


raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w") as tar:
    content = b"hello from a registry behind strivacity\n"
    member = tarfile.TarInfo("hello.txt")
    member.size = len(content)
    tar.addfile(member, io.BytesIO(content))
layer = blob(gzip.compress(raw.getvalue(), mtime=0))
config = blob(json.dumps({
    "architecture": "amd64", "os": "linux", "config": {},
    "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(raw.getvalue()).hexdigest()]},
}).encode())
manifest_bytes = json.dumps({
    "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": dict(mediaType="application/vnd.oci.image.config.v1+json", **config),
    "layers": [dict(mediaType="application/vnd.oci.image.layer.v1.tar+gzip", **layer)],
}).encode()
manifest = blob(manifest_bytes)
with open(directory + "/index.json", "w") as file:
    json.dump({"schemaVersion": 2, "manifests": [dict(
        mediaType="application/vnd.oci.image.manifest.v1+json",
        annotations={"org.opencontainers.image.ref.name": tag}, **manifest)]}, file)
with open(directory + "/oci-layout", "w") as file:
    file.write('{"imageLayoutVersion":"1.0.0"}')
print(manifest["digest"])
