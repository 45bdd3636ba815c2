/// FNV-1a, 64 bits: the same text gives the same number in every process and run (Swift's own
/// `hashValue` is seeded per process). For names and keys, not for security.
public enum StableHash {
  public static func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
    return hash
  }
}
