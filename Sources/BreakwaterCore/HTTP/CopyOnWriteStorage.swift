// The storage class behind a copy-on-write value (HTTPRequest, HTTPResponse): copying the value
// is one retain, and a write first copies the storage when another value still shares it.

/// A value type's heap storage that can make an independent copy of itself.
package protocol CopyOnWriteStorage: AnyObject {
    func copy() -> Self
}

extension CopyOnWriteStorage {
    /// `storage`, replaced by its copy first when it is shared: safe to write through.
    @inline(__always)
    static func unique(_ storage: inout Self) -> Self {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }
}
