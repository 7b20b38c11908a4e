// AWS credentials for an API's AWS role (`strivacity aws-credential-process`): the API's token,
// as every helper gets it (never a sign-in), exchanged at STS (AssumeRoleWithWebIdentity) through
// the same HTTP client as every tenant request (libcurl, the profile's proxy and trust), and kept
// in the kernel's keyring until shortly before they expire — never in a file. What is sent and
// read is AWSCredentialProcess's; the small binary answers the kept ones itself (HotAWS.swift).
import StrivacityConfig
import StrivacityCore
import TokenCache
import ToolHelpers

extension TokenBroker {
  /// Credentials for `role`, whose web identity is `api`'s token: the kept ones while they were
  /// made from the current token and have more than AWSCredentialProcess.margin left; else new
  /// ones from STS, kept. Throws AWSCredentialError for STS's refusals and answers.
  package func awsCredentials(_ api: API, role: AWSRole) throws -> AWSCredentials {
    let token = try helperToken(api, prefix: AWSCredentialProcess.messagePrefix)
    let endpoint = try AWSCredentialProcess.endpoint(role, environment: context.environment)
    let cacheKey = AWSCredentialProcess.cacheKey(key, api: api, role: role, profile: name, endpoint: endpoint)
    let caching = KernelTokenCache.enabled(context.environment)
    if caching, var record = KernelTokenCache.record(cacheKey) {
      defer { record.wipe() }
      if let kept = AWSCredentialProcess.cached(record, token: token, now: now()) { return kept }
    }
    let request = AWSCredentialProcess.stsRequest(role: role, token: token, profile: name, endpoint: endpoint)
    let response = try tenantClient.send(request, "Asking AWS STS for credentials")
    let credentials = try AWSCredentialProcess.credentials(response, role: role)
    log.note("AWS STS answered \(credentials)")
    if caching, let seconds = AWSCredentialProcess.cacheSeconds(credentials, now: now()) {
      var record = AWSCredentialProcess.record(credentials, token: token)
      KernelTokenCache.putRecord(record, for: cacheKey, seconds: seconds)
      record.wipe()
    }
    return credentials
  }
}
