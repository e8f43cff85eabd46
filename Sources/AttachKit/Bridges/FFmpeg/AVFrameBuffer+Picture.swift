import CFFmpeg

extension AVFrameBuffer {
    /// Gives the frame fresh 8-bit 4:2:0 buffers of `width`×`height` (`av_frame_get_buffer`),
    /// releasing what it held, for a picture made in memory (the speed calibration's).
    /// - Throws: ``FFmpegError`` tagged ``FFmpegOperation/frameAlloc``.
    func allocatePicture(width: Int, height: Int) throws(FFmpegError) {
        unref()
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = PictureFormat.yuv420p.av.rawValue
        let allocated = av_frame_get_buffer(pointer, 0)
        guard allocated >= 0 else { throw FFmpegError(operation: .frameAlloc, code: allocated) }
    }

    /// Copies `rows` rows of `rowBytes` bytes into plane `plane` (0 luma, 1 and 2 chroma) of a
    /// picture from ``allocatePicture(width:height:)``, row `r` from `source + r × sourceStride`.
    func fill(plane: Int, rows: Int, rowBytes: Int, from source: UnsafePointer<UInt8>, sourceStride: Int) {
        let planes = [pointer.pointee.data.0, pointer.pointee.data.1, pointer.pointee.data.2]
        let strides = [pointer.pointee.linesize.0, pointer.pointee.linesize.1, pointer.pointee.linesize.2]
        guard plane >= 0, plane < 3, let target = planes[plane] else { return }
        let stride = Int(strides[plane])
        for row in 0..<rows {
            (target + row * stride).update(from: source + row * sourceStride, count: min(rowBytes, stride))
        }
    }
}
