// SPDX-License-Identifier: Apache-2.0
/// The document's embedded files (ISO 32000-2, 7.11.4), grown by an update: each file's stream
/// and file specification added, and listed in the /EmbeddedFiles name tree of the catalog's
/// /Names (both made when missing). A key goes into the leaf whose range holds it, in sorted
/// order, and the /Limits on the way down widen to include it, so a reader's binary search
/// still finds every name. The nodes it changes are rewritten in the update; the original's
/// bytes stay as they were.
enum EmbeddedFiles {
    /// Embeds `files`; returns their file specifications (for a widget's /AF), in order. A name
    /// that a file in the document (or an earlier one of `files`) has already is made unique:
    /// `receipt.xml` becomes `receipt-2.xml`.
    static func embed(_ files: [EmbeddedFile], in update: inout IncrementalUpdate) throws -> [PDFReference] {
        guard !files.isEmpty else { return [] }
        for file in files { try file.check() }
        var taken = Set(try existingKeys(update).map(PDFText.decode))
        var specifications: [PDFReference] = []
        for file in files {
            let key = unique(file.name, taken: taken)
            taken.insert(key)
            let stream = try update.add(.stream(try file.stream()))
            let specification = try update.add(.dictionary(file.fileSpecification(key: key, embedded: stream)))
            try within("adding '\(key)' to the /EmbeddedFiles name tree") {
                try insert(PDFText.encode(key), .reference(specification), in: &update)
            }
            specifications.append(specification)
        }
        return specifications
    }

    static func unique(_ name: String, taken: Set<String>) -> String {
        guard taken.contains(name) else { return name }
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 } ?? name.endIndex
        let (stem, suffix) = (name[..<dot], name[dot...])
        var n = 2
        while taken.contains("\(stem)-\(n)\(suffix)") { n += 1 }
        return "\(stem)-\(n)\(suffix)"
    }

    // MARK: the tree's place: catalog → /Names → /EmbeddedFiles

    private static func insert(_ key: [UInt8], _ value: PDFObject, in update: inout IncrementalUpdate) throws {
        guard let root = update.document.trailer["Root"]?.referenceValue else { throw PDFError.malformed("the trailer has no /Root reference") }
        var catalog = try update.dictionary(.reference(root), what: "the catalog")
        var names = PDFDictionary()
        var namesReference: PDFReference?
        switch catalog["Names"] {
        case .reference(let r)? where (try? update.resolve(.reference(r)))??.dictionaryValue != nil:
            names = try update.dictionary(.reference(r), what: "the catalog's /Names")
            namesReference = r
        case .dictionary(let d)?: names = d
        default: break // none, or one no reader could use: a new one
        }
        switch names["EmbeddedFiles"] {
        case .reference(let r)? where (try? update.resolve(.reference(r)))??.dictionaryValue != nil:
            let tree = try update.dictionary(.reference(r), what: "the /EmbeddedFiles name tree")
            // Written where it is: /Names and the catalog stay as they are.
            try update.set(r, .dictionary(try inserted(key, value, into: tree, isRoot: true, depth: 0, &update)))
            return
        case .dictionary(let tree)?:
            names["EmbeddedFiles"] = .dictionary(try inserted(key, value, into: tree, isRoot: true, depth: 0, &update))
        default:
            names["EmbeddedFiles"] = .reference(try update.add(.dictionary(PDFDictionary([("Names", .array([.string(key), value]))]))))
        }
        if let namesReference {
            try update.set(namesReference, .dictionary(names))
        } else {
            catalog["Names"] = .dictionary(names)
            try update.set(root, .dictionary(catalog))
        }
    }

    // MARK: the name tree

    /// `node` with `key → value` in its subtree (the kids it passes through rewritten).
    private static func inserted(_ key: [UInt8], _ value: PDFObject, into node: PDFDictionary, isRoot: Bool, depth: Int,
                                 _ update: inout IncrementalUpdate) throws -> PDFDictionary {
        guard depth < PDFLimits.maxNameTreeDepth else { throw PDFError.tooLarge("the name tree is more than \(PDFLimits.maxNameTreeDepth) levels deep") }
        var node = node
        if var kids = try update.resolve(node["Kids"])?.arrayValue, !kids.isEmpty {
            // The last kid whose range starts at or before the key (else the first): its place in the order.
            var chosen = 0
            for (i, kid) in kids.enumerated() {
                if let lower = try limits(of: kid, update)?.lower, !key.lexicographicallyPrecedes(lower) { chosen = i }
            }
            let what = "kid \(chosen + 1) of a name tree node"
            let kid = try update.dictionary(kids[chosen], what: what)
            let changed = try inserted(key, value, into: kid, isRoot: false, depth: depth + 1, &update)
            if case .reference(let r) = kids[chosen] {
                try update.set(r, .dictionary(changed))
            } else {
                kids[chosen] = .dictionary(changed)
                node["Kids"] = .array(kids)
            }
        } else {
            var pairs = try update.resolve(node["Names"])?.arrayValue ?? []
            guard pairs.count % 2 == 0 else { throw PDFError.malformed("a name tree leaf has an odd number (\(pairs.count)) of keys and values") }
            var at = pairs.count
            for i in stride(from: 0, to: pairs.count, by: 2) {
                if let other = try update.resolve(pairs[i])?.stringValue, key.lexicographicallyPrecedes(other) { at = i; break }
            }
            pairs.insert(contentsOf: [.string(key), value], at: at)
            node["Names"] = .array(pairs)
        }
        // The root has no /Limits (a writer that gave it some gets them kept right).
        if !isRoot || node["Limits"] != nil, let span = try span(of: node, update) {
            node["Limits"] = .array([.string(span.lower), .string(span.upper)])
        }
        return node
    }

    /// The least and greatest key below `node`: its kids' /Limits, or its own keys.
    private static func span(of node: PDFDictionary, _ update: IncrementalUpdate) throws -> (lower: [UInt8], upper: [UInt8])? {
        var bounds: [[UInt8]] = []
        if let kids = try update.resolve(node["Kids"])?.arrayValue, !kids.isEmpty {
            for kid in kids { if let l = try limits(of: kid, update) { bounds += [l.lower, l.upper] } }
        } else {
            let pairs = try update.resolve(node["Names"])?.arrayValue ?? []
            for i in stride(from: 0, to: pairs.count, by: 2) { if let key = try update.resolve(pairs[i])?.stringValue { bounds.append(key) } }
        }
        guard let lower = bounds.min(by: { $0.lexicographicallyPrecedes($1) }),
              let upper = bounds.max(by: { $0.lexicographicallyPrecedes($1) }) else { return nil }
        return (lower, upper)
    }

    /// A node's /Limits (least and greatest key below it), if it has them.
    private static func limits(of node: PDFObject, _ update: IncrementalUpdate) throws -> (lower: [UInt8], upper: [UInt8])? {
        guard let limits = try update.resolve(update.resolve(node)?.dictionaryValue?["Limits"])?.arrayValue, limits.count == 2,
              let lower = try update.resolve(limits[0])?.stringValue, let upper = try update.resolve(limits[1])?.stringValue else { return nil }
        return (lower, upper)
    }

    /// Every key in the tree as the update has it so far.
    private static func existingKeys(_ update: IncrementalUpdate) throws -> [[UInt8]] {
        let catalog = try update.dictionary(update.document.trailer["Root"], what: "the catalog")
        guard let tree = try update.resolve(update.resolve(catalog["Names"])?.dictionaryValue?["EmbeddedFiles"]) else { return [] }
        var keys: [[UInt8]] = []
        var visited = 0
        func walk(_ node: PDFObject, depth: Int) throws {
            guard depth < PDFLimits.maxNameTreeDepth else { throw PDFError.tooLarge("the /EmbeddedFiles name tree is more than \(PDFLimits.maxNameTreeDepth) levels deep") }
            visited += 1
            guard visited <= PDFLimits.maxNameTreeNodes else { throw PDFError.tooLarge("the /EmbeddedFiles name tree has more than \(PDFLimits.maxNameTreeNodes) nodes") }
            guard let dictionary = try update.resolve(node)?.dictionaryValue else { return }
            for kid in try update.resolve(dictionary["Kids"])?.arrayValue ?? [] { try walk(kid, depth: depth + 1) }
            let pairs = try update.resolve(dictionary["Names"])?.arrayValue ?? []
            for i in stride(from: 0, to: pairs.count, by: 2) {
                if let key = try update.resolve(pairs[i])?.stringValue { keys.append(key) }
            }
        }
        try walk(tree, depth: 0)
        return keys
    }
}
