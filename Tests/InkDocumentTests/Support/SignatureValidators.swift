// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
@testable import InkDocument

/// The independent judges of a PAdES signature: poppler's pdfsig (NSS) and pyHanko. Both are
/// needed (scripts/install-deps.sh installs them): a test without them fails, saying so.
enum SignatureValidators {
    static let pdfsig = Tools.which("pdfsig")

    /// The Python of the venv install-deps.sh puts pyHanko in.
    static var pyHankoPython: String? {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["INKKIOSK_CACHE"] ?? "\(environment["HOME"] ?? "/root")/.cache/inkkiosk"
        let python = "\(cache)/pyhanko/bin/python"
        return FileManager.default.isExecutableFile(atPath: python) ? python : nil
    }

    /// pdfsig's verdict on each signature, in the file's order: its "Signature Validation:" line's
    /// text ("Signature is Valid.", "Digest Mismatch.", …). Whether the certificate is trusted is
    /// another line, not asked: the device's certificate is self-signed.
    static func pdfsigVerdicts(_ path: String) throws -> [String] {
        let tool = try #require(pdfsig, "pdfsig (poppler-utils) is needed to judge the signatures: run scripts/install-deps.sh")
        let result = try Tools.run(tool, [path])
        return (result.stdout + result.stderr).split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "Signature Validation: ") else { return nil }
            return String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
    }

    static func pdfsigOutput(_ path: String) throws -> String {
        let tool = try #require(pdfsig, "pdfsig (poppler-utils) is needed: run scripts/install-deps.sh")
        let result = try Tools.run(tool, [path])
        return result.stdout + result.stderr
    }

    /// One embedded signature as pyHanko's validator sees it, its certificate taken as the
    /// trust root (self-signed: trust is not what is tested, the signature's math is).
    struct PyHankoVerdict: Equatable {
        var field: String
        var subFilter: String
        var intact: Bool
        var valid: Bool
        var signedAttributes: [String]
        /// pyHanko's whole judgement: trusted (the certificate is the trust root here), intact,
        /// valid, and what later revisions changed allowed (its diff analysis).
        var bottomLine: Bool
        /// What later revisions changed, as pyHanko's diff analysis classes it ("NONE", "FORM_FILLING", …).
        var modificationLevel: String
        /// Whether what later revisions changed is allowed by the locks in force (nil: not judged).
        var docmdpOK: Bool?
        /// The DocMDP level the signature sets ("NO_CHANGES", "FILL_FORMS", …; "None").
        var docmdp: String
        /// The catalog's /Perms /DocMDP names this signature: it certifies the document.
        var certifies: Bool
        /// Its FieldMDP lock: "ALL", "EXCLUDE:a,b", "INCLUDE:a"; "None".
        var fieldLock: String
        /// Why the diff analysis refused a later revision, if it did.
        var refusal: String
    }

    static let pyHankoScript = """
        import sys
        from pyhanko.pdf_utils.reader import PdfFileReader
        from pyhanko.sign.validation import validate_pdf_signature
        from pyhanko.sign.validation.pdf_embedded import read_certification_data
        from pyhanko.sign.diff_analysis import SuspiciousModification
        from pyhanko_certvalidator import ValidationContext
        with open(sys.argv[1], 'rb') as f:
            reader = PdfFileReader(f, strict=False)
            certification = read_certification_data(reader)
            for sig in reader.embedded_signatures:
                context = ValidationContext(trust_roots=[sig.signer_cert], allow_fetching=False)
                status = validate_pdf_signature(sig, signer_validation_context=context)
                attributes = sorted(a['type'].native for a in sig.signer_info['signed_attrs'])
                level = status.modification_level.name if status.modification_level is not None else 'None'
                docmdp = sig.docmdp_level.name if sig.docmdp_level is not None else 'None'
                certifies = certification is not None and certification.author_sig['/Contents'] == sig.sig_object['/Contents']
                lock = sig.fieldmdp
                lock = 'None' if lock is None else lock.action.name + (':' + ','.join(lock.fields) if lock.fields else '')
                refusal = str(status.diff_result).replace('\\t', ' ').replace('\\n', ' ') if isinstance(status.diff_result, SuspiciousModification) else ''
                print('\\t'.join([sig.field_name, str(sig.sig_object['/SubFilter']), str(status.intact),
                                  str(status.valid), ','.join(attributes), str(status.bottom_line), level,
                                  str(status.docmdp_ok), docmdp, str(certifies), lock, refusal]))
        """

    static func pyHanko(_ path: String) throws -> [PyHankoVerdict] {
        let python = try #require(pyHankoPython, "pyHanko is needed to judge the signatures: run scripts/install-deps.sh (it makes the venv ~/.cache/inkkiosk/pyhanko)")
        let result = try Tools.run(python, ["-c", pyHankoScript, path])
        #expect(result.status == 0, "pyHanko on \(path): \(result.stderr)")
        return result.stdout.split(separator: "\n").map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return PyHankoVerdict(field: f[0], subFilter: f.count > 1 ? f[1] : "", intact: f.count > 2 && f[2] == "True",
                                  valid: f.count > 3 && f[3] == "True", signedAttributes: f.count > 4 ? f[4].split(separator: ",").map(String.init) : [],
                                  bottomLine: f.count > 5 && f[5] == "True", modificationLevel: f.count > 6 ? f[6] : "",
                                  docmdpOK: f.count > 7 && f[7] != "None" ? f[7] == "True" : nil, docmdp: f.count > 8 ? f[8] : "",
                                  certifies: f.count > 9 && f[9] == "True", fieldLock: f.count > 10 ? f[10] : "",
                                  refusal: f.count > 11 ? f[11] : "")
        }
    }
}
