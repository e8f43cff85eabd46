/// How much reordering libavformat is left to do when an index arrives out of time order.
/// libavformat inserts index entries one at a time in time order: an entry earlier than those
/// already there moves all of them (`ff_add_index_entry` for Matroska cues, `mov_read_trun`
/// making room for a movie fragment), so a whole index in falling order costs the square of its
/// size. ``MatroskaCues`` and ``ISOBMFFSampleTables`` bound that cost before it is paid.
enum IndexReorder {
    /// Index entries libavformat may move sorting an index: 100 M, about 0.1 s here (200,000
    /// Matroska cue points in falling time, 2·10¹⁰ moves, took 18 s). A few entries out of order
    /// cost nothing near it; past it the index is corrupt.
    static let maximumMoves: Int64 = 100_000_000
}
