import CFFmpeg

/// How options reach an FFmpeg call that takes an `AVDictionary **`: the one place a dictionary is
/// built, handed over and freed, and the keys FFmpeg left in it (the ones it did not know) read back.
enum FFmpegOptions {
    /// Calls `call` with a dictionary holding `options` and returns its status and the option
    /// names the call did not take, sorted (callers refuse them: an unknown option is an error,
    /// never silently ignored). The dictionary is freed on every path.
    static func passing(_ options: KeyValuePairs<String, String>, _ extra: [String: String] = [:],
                        to call: (inout OpaquePointer?) -> Int32) -> (status: Int32, unknown: [String]) {
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        for (key, value) in extra { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        let status = call(&dictionary)
        return (status, keys(of: dictionary))
    }

    /// The keys left in a dictionary, sorted.
    private static func keys(of dictionary: OpaquePointer?) -> [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys.sorted()
    }
}
