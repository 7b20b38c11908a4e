// Secret bytes wiped in one place: a token, a password or a client secret read into a buffer is
// overwritten before the buffer is let go, with explicit_bzero(3), which the compiler may not
// drop as a store nobody reads (a loop of zeroes it may).
import func Glibc.explicit_bzero

extension Array where Element: FixedWidthInteger {
  /// Overwrites every element with zero; the count stays.
  @inlinable public mutating func wipe() {
    withUnsafeMutableBytes { bytes in
      if let base = bytes.baseAddress { explicit_bzero(base, bytes.count) }
    }
  }
}
