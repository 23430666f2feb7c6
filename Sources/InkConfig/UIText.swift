/// Every word the kiosk shows, so a deployment can translate them (`[ui.text]` in the config).
public struct UIText: Sendable, Equatable {
    // Signature mode
    public var prompt = "Please sign above the line"
    public var clear = "Clear"
    public var accept = "Accept"
    public var cancel = "Cancel"
    public var signFirst = "Please sign before accepting"
    public var thanks = "Thank you"
    public var waiting = "Please wait"
    /// While a signature's or a notebook's files are written.
    public var saving = "Saving…"
    /// "%@" is the reason.
    public var signatureNotSaved = "The signature could not be saved (%@). Please press Accept again."
    // Classroom mode
    public var pen = "Pen"
    public var calligraphy = "Calligraphy"
    public var highlighter = "Highlighter"
    public var eraser = "Eraser"
    public var undo = "Undo"
    public var redo = "Redo"
    public var clearPage = "Clear"
    public var confirmClear = "Clear this page?"
    public var confirmYes = "Clear page"
    public var confirmNo = "Keep"
    public var newPage = "New page"
    public var save = "Save"
    /// "%d" is the page count.
    public var saved = "Saved %d pages"
    public var notebookNotSaved = "The pages could not be saved (%@)."
    public var worksheets = "Worksheets"
    public var close = "Close"
    /// "%d" is the page count.
    public var worksheetPages = "%d pages"
    /// "%@" is the folder.
    public var noWorksheets = "No worksheets yet: put PDF files in %@"
    /// "%@" is the worksheet's name.
    public var openingWorksheet = "Opening %@…"
    /// "%@" is what is wrong with the file.
    public var worksheetProblem = "This worksheet cannot be opened: %@"
    /// "%@" is the worksheet's name.
    public var worksheetGone = "The worksheet %@ is no longer on this tablet: its ink is shown on blank pages."
    /// "%@" is the worksheet's name: it is open from the USB stick, which must stay in.
    public var worksheetNotCopied = "%@ could not be copied to this tablet: keep the USB stick in until it is saved."
    /// "%@" is the page's number: the PDF reader took longer than worksheet_stuck_seconds on it and was stopped.
    public var worksheetStuck = "Page %@ took too long to draw and is left blank. Drawing goes on."
    /// "%@" is the reason; the notebook shown stays.
    public var worksheetNotOpened = "The pages could not be saved (%@), so the worksheet was not opened."
    // Signature: documents
    /// Over a document's page while it is read.
    public var reviewDocument = "Please read the document, then tap Sign"
    /// "%@" is "2 of 3": the page shown and the pages.
    public var documentPage = "Page %@"
    public var sign = "Sign"
    /// Until every page the host asked for was shown.
    public var readAllPages = "Please read every page before signing"
    public var openingDocument = "Opening the document…"
    // Both
    /// "%@" is the reason, e.g. "No space left on device".
    public var storageWarning = "Cannot save to disk (%@). Drawing continues; new ink is kept in memory."

    public init() {}

    /// The `[ui.text]` keys of the config file.
    static var configKeys: [(key: String, path: WritableKeyPath<UIText, String>)] {
        [("prompt", \.prompt), ("clear", \.clear), ("accept", \.accept), ("cancel", \.cancel), ("sign_first", \.signFirst),
         ("thanks", \.thanks), ("waiting", \.waiting), ("saving", \.saving), ("signature_not_saved", \.signatureNotSaved),
         ("pen", \.pen), ("calligraphy", \.calligraphy), ("highlighter", \.highlighter), ("eraser", \.eraser),
         ("undo", \.undo), ("redo", \.redo), ("clear_page", \.clearPage),
         ("confirm_clear", \.confirmClear), ("confirm_yes", \.confirmYes), ("confirm_no", \.confirmNo),
         ("new_page", \.newPage), ("save", \.save), ("saved", \.saved), ("notebook_not_saved", \.notebookNotSaved),
         ("worksheets", \.worksheets), ("close", \.close), ("worksheet_pages", \.worksheetPages), ("no_worksheets", \.noWorksheets),
         ("opening_worksheet", \.openingWorksheet), ("worksheet_problem", \.worksheetProblem), ("worksheet_gone", \.worksheetGone),
         ("worksheet_not_opened", \.worksheetNotOpened), ("worksheet_not_copied", \.worksheetNotCopied),
         ("worksheet_stuck", \.worksheetStuck),
         ("review_document", \.reviewDocument), ("document_page", \.documentPage), ("sign", \.sign),
         ("read_all_pages", \.readAllPages), ("opening_document", \.openingDocument),
         ("storage_warning", \.storageWarning)]
    }

    /// Fills in a "%d" or "%@" placeholder.
    public static func format(_ template: String, _ value: String) -> String {
        template.replacing("%d", with: value).replacing("%@", with: value)
    }
}
