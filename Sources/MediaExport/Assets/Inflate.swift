internal import CZlib
import Foundation

/// Raw DEFLATE inflation (zlib with `windowBits = -15`: no zlib header or checksum), as Photos stores the JSON of
/// `com.apple.photo` and `com.apple.video` adjustment data. The input is an upload's: the output is bounded, and
/// inflation stops as soon as it passes the bound, so a small "bomb" costs at most `limit + 1` bytes and the time
/// to make them.
enum Inflate {
    /// The inflated bytes of one complete DEFLATE stream at the start of `data` (bytes after the stream's end are
    /// ignored, like Python's `zlib.decompressobj`), or nil when the data is not DEFLATE, ends before the stream
    /// does, or inflates to more than `limit` bytes. zlib writes straight into the result, which grows by doubling
    /// and never past `limit + 1` bytes (the one byte more tells "exactly the limit" from "past it").
    static func raw(_ data: Data, limit: Int) -> Data? {
        guard limit >= 0, limit < Int(UInt32.max), data.count <= Int(UInt32.max) else { return nil }
        // zlib keeps the stream's address (`state->strm`): a heap allocation keeps it fixed, a Swift local does not promise to.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        guard cz_inflate_init_raw(stream) == Z_OK else { return nil }
        defer { inflateEnd(stream) }
        var output = Data(count: min(limit + 1, max(4 * data.count, 4096)))
        var written = 0
        return data.withUnsafeBytes { (input: UnsafeRawBufferPointer) -> Data? in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(input.count)
            while true {
                if written == output.count {
                    guard output.count <= limit else { return nil }
                    output.count = min(limit + 1, output.count * 2)
                }
                let room = output.count - written
                let status = output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int32 in
                    stream.pointee.next_out = out.bindMemory(to: Bytef.self).baseAddress! + written  // output: ≥ 4096 bytes
                    stream.pointee.avail_out = uInt(room)
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                written += room - Int(stream.pointee.avail_out)
                switch status {
                case Z_STREAM_END:
                    guard written <= limit else { return nil }
                    output.count = written
                    return output
                case Z_OK:
                    // All input read, room left for output, and no end of stream: the data is cut short.
                    if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return nil }
                default:
                    // Z_BUF_ERROR (no progress possible: truncated), Z_DATA_ERROR, Z_MEM_ERROR, Z_NEED_DICT.
                    return nil
                }
            }
        }
    }
}
