// The one owner of a libcurl easy handle.
//
// Lifetime: the handle is created in init and freed in deinit, together with any header list
// it still references. Thread-safety: none. One CurlEasy is used by one thread at a time
// (libcurl's rule for easy handles); CurlHTTPClient serialises access.
internal import CCurlShim
import StrivacityCore

final class CurlEasy {
  let handle: UnsafeMutableRawPointer
  private var headerList: UnsafeMutablePointer<curl_slist>?

  /// Loads libcurl if needed and creates a handle.
  init() throws(TransportError) {
    var errbuf = [CChar](repeating: 0, count: 256)
    guard sc_load(&errbuf, errbuf.count) == 0 else {
      throw .libraryUnavailable(
        detail: String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    guard let raw = sc_easy_init() else { throw .libraryUnavailable(detail: "curl_easy_init failed") }
    handle = raw
  }

  deinit {
    sc_easy_cleanup(handle)
    if let headerList { sc_slist_free_all(headerList) }
  }

  /// Clears per-request options; cookies, connections and caches survive (curl_easy_reset).
  func reset() {
    sc_easy_reset(handle)
    if let headerList { sc_slist_free_all(headerList) }
    headerList = nil
  }

  func set(_ option: CURLoption, _ value: Int) throws(CurlOptionError) {
    try check(option, sc_setopt_long(handle, option, value))
  }

  func set(_ option: CURLoption, _ value: String) throws(CurlOptionError) {
    try check(option, value.withCString { sc_setopt_str(handle, option, $0) })
  }

  func set(_ option: CURLoption, offset value: Int64) throws(CurlOptionError) {
    try check(option, sc_setopt_off(handle, option, curl_off_t(value)))
  }

  /// Copies the body into libcurl (CURLOPT_COPYPOSTFIELDS), so it need not outlive the call.
  func setBody(_ body: [UInt8]) throws(CurlOptionError) {
    try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(body.count))
    let rc = body.withUnsafeBytes {
      sc_setopt_ptr(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
    }
    try check(CURLOPT_COPYPOSTFIELDS, rc)
  }

  /// Sets the request headers; the list lives until the next reset or deinit.
  func setHeaders(_ lines: [String]) throws(CurlOptionError) {
    if let headerList { sc_slist_free_all(headerList) }
    headerList = nil
    for line in lines { headerList = sc_slist_append(headerList, line) }
    try check(CURLOPT_HTTPHEADER, sc_setopt_ptr(handle, CURLOPT_HTTPHEADER, headerList))
  }

  func setCallbacks(write: sc_data_callback, header: sc_data_callback, context: UnsafeMutableRawPointer)
    throws(CurlOptionError)
  {
    try check(CURLOPT_WRITEFUNCTION, sc_setopt_write_callback(handle, write, context))
    try check(CURLOPT_HEADERFUNCTION, sc_setopt_header_callback(handle, header, context))
  }

  func perform() -> CURLcode { sc_easy_perform(handle) }

  /// A field of the peer's first certificate (CURLOPT_CERTINFO), at most 255 bytes.
  func certificateField(_ name: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    guard sc_certinfo_field(handle, name, &buffer, buffer.count) == 0 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  func info(_ info: CURLINFO) -> Int {
    var value = 0
    _ = sc_getinfo_long(handle, info, &value)
    return value
  }

  private func check(_ option: CURLoption, _ rc: CURLcode) throws(CurlOptionError) {
    guard rc == CURLE_OK else { throw CurlOptionError(option: option, code: rc) }
  }
}

/// An option the installed libcurl refused (too old, or built without a feature).
struct CurlOptionError: Error {
  var option: CURLoption
  var code: CURLcode
  var message: String { "libcurl refused option \(option.rawValue): \(String(cString: sc_easy_strerror(code)))" }
}
