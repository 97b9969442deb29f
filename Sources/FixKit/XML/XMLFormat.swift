/// An input format that is an XML vocabulary: GPX, TCX, KML. A conforming type names its
/// vocabulary; reading is the same for all of them (`XMLStreamParser`).
protocol XMLFormat: InputFormat {
    associatedtype Vocabulary: XMLVocabulary
    /// The root element's local name, by which the format is recognised.
    static var rootName: String { get }
    /// The vocabulary for one input.
    static func vocabulary(_ settings: ReaderSettings) -> Vocabulary
    var settings: ReaderSettings { get }
}

extension XMLFormat {
    /// An XML document whose root element (past the declaration, comments and a DOCTYPE) has
    /// `rootName` as its local name.
    static func recognize(_ head: InputHead) -> Recognition {
        XMLRoot.recognize(head, localName: rootName)
    }

    mutating func read(_ source: InputSource, into sink: FixSink) throws {
        try XMLStreamParser.parse(source, vocabulary: Self.vocabulary(settings), sink: sink)
    }
}
