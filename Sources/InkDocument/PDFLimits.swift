// SPDX-License-Identifier: Apache-2.0
/// How much of anything the reader believes. A PDF comes from outside (a shop's contract, a
/// stick), so every count, length and depth taken from its bytes is checked against one of
/// these before it sizes an allocation or a loop; beyond them the read stops with `.tooLarge`.
/// They are far above what real documents need (a 400-page manual uses a fraction of each) and
/// keep a hostile file's cost within what a kiosk with 64 MB can spend.
public enum PDFLimits {
    /// The whole file. Contracts are a few MB; scanned ones tens.
    public static let maxFileBytes = 256 << 20
    /// Arrays and dictionaries inside each other (the parser recurses once per level).
    public static let maxNesting = 64
    /// Elements of one array.
    public static let maxArrayCount = 100_000
    /// Entries of one dictionary.
    public static let maxDictionaryCount = 10_000
    /// Bytes of one string (a signature's /Contents is some 32 KB of hex).
    public static let maxStringBytes = 4 << 20
    /// Bytes of one name: the format's own limit (ISO 32000-1, C.2).
    public static let maxNameBytes = 127
    /// Characters of one number token.
    public static let maxNumberCharacters = 64
    /// The highest object number (the format's own limit, 2^23 − 1).
    public static let maxObjectNumber = 8_388_607
    /// The highest generation number.
    public static let maxGeneration = 65_535
    /// Cross-reference entries of the whole file, all sections together.
    public static let maxCrossReferenceEntries = 1_000_000
    /// Cross-reference sections followed through /Prev (each incremental update adds one).
    public static let maxCrossReferenceSections = 1024
    /// Bytes of one stream once decoded (a cross-reference or object stream).
    public static let maxDecodedStreamBytes = 64 << 20
    /// Objects in one object stream (/N).
    public static let maxObjectsInStream = 100_000
    /// A reference that leads to a reference that leads to … (and a stream's indirect /Length,
    /// which may itself need another object read): resolved this many steps deep at most.
    public static let maxResolveDepth = 16
    /// Pages of the document, and levels of its page tree.
    public static let maxPages = 100_000
    public static let maxPageTreeDepth = 64
    /// Annotations listed by all pages together.
    public static let maxAnnotations = 1_000_000
    /// Form fields visited, and levels of the field tree.
    public static let maxFields = 20_000
    public static let maxFieldTreeDepth = 32
    /// Levels of a name tree (/EmbeddedFiles), and its nodes visited.
    public static let maxNameTreeDepth = 32
    public static let maxNameTreeNodes = 20_000
    /// How far from the end of the file `startxref` is looked for: the format's 1024 bytes, as
    /// poppler looks (a file with more behind it is one poppler rebuilds).
    public static let startxrefSearchBytes = 1024
    /// Where `%PDF-` may start (the format says 0; readers accept up to 1024).
    public static let headerSearchBytes = 1024
}
