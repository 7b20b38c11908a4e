// doctor's rows for what is kept on this machine: the token store (keyring, file or kernel), the
// kernel's access-token cache, the agent and the token files it keeps.
import Agent
import Broker
import SecretStore
import StrivacityCore
import SystemIO
import TokenCache

extension Examination {
  // MARK: 6. the store

  /// The keys this profile's store may hold: the sign-in's (or a machine's) and each API's.
  func keys(_ session: TokenBroker) -> [StoreKey] {
    [session.key] + session.resolved.profile.apis.map { session.key(for: $0) }
  }

  func store(_ session: TokenBroker) -> KeyringInspection? {
    switch session.resolved.store {
    case .file:
      let store = FileStore(stateDirectory: context.paths.stateDir)
      do {
        let held = try store.load(session.key) != nil
        add("store", .pass, "the 0600 file \(store.path(for: session.key))\(held ? "" : " (not there yet)")")
      } catch {
        add("store", .fail, message(error), fix: "correct the file as the message says", status: .store)
      }
      return nil
    case .kernel:
      machineStore()
      return nil
    case .secretService:
      do {
        let inspection = try TokenBroker.quietKeyring().inspect(keys(session))
        if inspection.locked {
          // The store's own sentence: what is locked, then (after the first colon) the way out.
          let said = inspection.lockedMessage ?? "\(inspection.collection) is locked: unlock it, or use --store file"
          let colon = said.firstRange(of: ": ")
          add(
            "store", .fail, "\(inspection.provider): " + (colon.map { String(said[..<$0.lowerBound]) } ?? said),
            fix: colon.map { String(said[$0.upperBound...]) } ?? "", status: .keyringLocked)
        } else {
          var held = false
          if case .present? = inspection.items.first { held = true }
          add(
            "store", .pass,
            "\(inspection.provider): \(inspection.collection), unlocked; the profile's item is "
              + (held ? "there" : "not there"))
        }
        return inspection
      } catch {
        let failure = CLIFailure(recognising: error) ?? CLIFailure("\(error)", status: .store)
        add(
          "store", .fail, failure.message,
          fix: "start a Secret Service (gnome-keyring, KeePassXC, KWallet), or use --store file", status: failure.status
        )
        return nil
      }
    }
  }

  // MARK: 7. the kernel cache, 8. the agent

  func kernelCache(_ session: TokenBroker) {
    guard KernelTokenCache.enabled(context.environment) else {
      add("kernel-cache", .skipped, "off (STRIVACITY_TOKEN_CACHE=off)")
      return
    }
    if let refusal = KernelTokenCache.refusal() {
      // A machine's store said where its tokens go instead; a person's tokens come from the store.
      if session.resolved.store == .kernel {
        add("kernel-cache", .skipped, "refused here (keyctl: \(refusal)); the store line says where tokens go")
      } else {
        add(
          "kernel-cache", .warn,
          "the access-token cache is off: the kernel's keyring is refused here (keyctl: \(refusal)); tokens come "
            + "from the store each time",
          fix: "nothing needed; a container's seccomp profile (Docker's default) forbids keyctl")
      }
      return
    }
    let name = "strivacity:doctor:\(processID())"
    KernelTokenCache.putNote("ok", name: name, seconds: 5)
    let works = KernelTokenCache.note(name: name) == "ok"
    KernelTokenCache.dropNote(name: name)
    if works {
      add("kernel-cache", .pass, "the kernel's user keyring takes and returns entries")
    } else if session.resolved.store == .kernel {
      add(
        "kernel-cache", .fail, "the kernel's user keyring is not usable here (keyctl)",
        fix: "use store = \"file\" for this machine profile (a container may forbid keyctl)", status: .store)
    } else {
      add(
        "kernel-cache", .warn, "the kernel's user keyring is not usable here: tokens come from the store each time",
        fix: "nothing needed; a container may forbid keyctl")
    }
  }

  /// A machine profile's store: the kernel's keyring, else (refused) its private files, checked
  /// as the first save would make them.
  func machineStore() {
    let place = MachineTokenStore.Place(environment: context.environment)
    guard case .files(let files, _) = place, let note = place.note else {
      add("store", .pass, "the kernel's user keyring (a machine profile's tokens live only there)")
      return
    }
    do {
      try files.prepare()
      add("store", .pass, "tokens \(note)")
    } catch {
      add(
        "store", .fail,
        "tokens cannot be kept (\(error)) and the kernel's keyring is refused here: each call asks the tenant",
        fix: "make \(files.directory) a 0700 directory of yours, or use store = \"file\"", status: .store)
    }
  }

  func agent(_ session: TokenBroker) {
    let enabled = AgentClient.enabled(context.environment, config: session.config)
    guard let answer = AgentClient.ping(context.environment, timeout: 1) else {
      if enabled {
        add(
          "agent", .warn, "enabled but not running",
          fix: "strivacity agent start (or systemctl --user start strivacity-agent.socket)")
      } else {
        add("agent", .skipped, "not in use")
      }
      return
    }
    let version = answer["version"] ?? "?"
    let pid = answer["pid"] ?? "?"
    if version == strivacityVersion {
      add("agent", .pass, "running (pid \(pid), version \(version))\(enabled ? "" : "; not asked by this profile")")
    } else {
      add(
        "agent", .warn,
        "running an older or newer strivacity (pid \(pid), version \(version); this is \(strivacityVersion))",
        fix: "restart it: strivacity agent stop, then strivacity agent start")
    }
  }

  /// A row per token file the agent keeps for this profile (`sink.NAME`): whether its place
  /// may be written, whether it holds a token, when it was last written.
  func sinks(_ session: TokenBroker) {
    let running = report.checks.contains {
      $0.id == "agent" && $0.outcome != .skipped && $0.detail.hasPrefix("running")
    }
    for sink in session.resolved.profile.sinks {
      let id = "sink.\(sink.name)"
      let what = "\(sink.path) (\(sink.api.map { "api \($0), " } ?? "")\(sink.format.rawValue))"
      if let refusal = SinkFile.refusal(sink.path) {
        add(id, .warn, "\(what): refused, \(refusal)", fix: "give it a directory of yours that only you can write")
        continue
      }
      let now = TokenBroker.now()
      let look = SinkFile.look(sink.path)
      let state = look?.described(now: now) ?? "not written yet"
      if !running {
        add(id, .warn, "\(what): \(state); no agent keeps it fresh", fix: "strivacity agent start")
      } else if look?.holdsToken != true {
        add(
          id, .warn, "\(what): \(state)",
          fix: "see the agent's log (journalctl --user -u strivacity-agent) for why it is not written")
      } else {
        add(id, .pass, "\(what): \(state)")
      }
    }
  }
}
