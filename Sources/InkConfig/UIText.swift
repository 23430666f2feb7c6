// SPDX-License-Identifier: Apache-2.0
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
    public var savedOnePage = "Saved 1 page"
    public var notebookNotSaved = "The pages could not be saved (%@)."
    public var worksheets = "Worksheets"
    public var close = "Close"
    /// "%d" is the page count.
    public var worksheetPages = "%d pages"
    public var worksheetOnePage = "1 page"
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
    // Classroom: the school's cloud
    public var handIn = "Hand in"
    public var handingIn = "Handing in…"
    /// "%@" is why it has not gone yet.
    public var handInWaiting = "Handed in, waiting to be sent: %@"
    public var handInQueued = "Handed in, being sent…"
    public var handInSent = "Handed in and sent to the teacher"
    /// "%@" is the reason.
    public var handInFailed = "The hand-in was not accepted: %@"
    /// "%@" is the reason.
    public var handInRefused = "Not handed in: %@"
    public var handInClosed = "Hand-in is closed"
    public var enrolPrompt = "Teacher: scan to connect this tablet"
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

    /// The `[ui.text]` keys of the config file, with what each word is for (the reference prints it).
    static var configKeys: [(key: String, path: WritableKeyPath<UIText, String>, summary: String)] {
        [("prompt", \.prompt, "Signature: under the line (a host's request may give its own)."),
         ("clear", \.clear, "Signature: the button that wipes the pad."),
         ("accept", \.accept, "Signature: the button that keeps the signature."),
         ("cancel", \.cancel, "Signature: the button that ends a host's request unsigned."),
         ("sign_first", \.signFirst, "Signature: Accept on an empty pad."),
         ("thanks", \.thanks, "Signature: once the capture is on disk."),
         ("waiting", \.waiting, "Signature: while no host has asked (nothing draws)."),
         ("saving", \.saving, "While a signature's or the notebook's files are written."),
         ("signature_not_saved", \.signatureNotSaved, "Signature: the capture could not be written; %@ is the reason."),
         ("pen", \.pen, "Classroom: the pen tool."),
         ("calligraphy", \.calligraphy, "Classroom: the calligraphy tool."),
         ("highlighter", \.highlighter, "Classroom: the highlighter tool."),
         ("eraser", \.eraser, "Classroom: the eraser tool."),
         ("undo", \.undo, "Classroom: Undo."),
         ("redo", \.redo, "Classroom: Redo."),
         ("clear_page", \.clearPage, "Classroom: the button that clears the page (after asking)."),
         ("confirm_clear", \.confirmClear, "Classroom: the question Clear asks."),
         ("confirm_yes", \.confirmYes, "Classroom: the answer that clears."),
         ("confirm_no", \.confirmNo, "Classroom: the answer that keeps the page."),
         ("new_page", \.newPage, "Classroom: New page."),
         ("save", \.save, "Classroom: Save."),
         ("saved", \.saved, "Classroom: after a Save; %d is the page count."),
         ("saved_one_page", \.savedOnePage, "Classroom: after a Save of one page."),
         ("notebook_not_saved", \.notebookNotSaved, "Classroom: a Save that failed; %@ is the reason."),
         ("worksheets", \.worksheets, "Classroom: the button that lists the worksheets."),
         ("close", \.close, "Classroom: closes the worksheet list."),
         ("worksheet_pages", \.worksheetPages, "Worksheet list: a file's page count (%d)."),
         ("worksheet_one_page", \.worksheetOnePage, "Worksheet list: a file of one page."),
         ("no_worksheets", \.noWorksheets, "Worksheet list: an empty folder; %@ is the folder."),
         ("opening_worksheet", \.openingWorksheet, "While a worksheet opens; %@ is its name."),
         ("worksheet_problem", \.worksheetProblem, "A worksheet that cannot be used; %@ is why."),
         ("worksheet_gone", \.worksheetGone, "After a restart, the worksheet's PDF is gone; %@ is its name."),
         ("worksheet_not_opened", \.worksheetNotOpened, "The notebook shown could not be saved first; %@ is the reason."),
         ("worksheet_not_copied", \.worksheetNotCopied, "A worksheet open from the USB stick, not copied; %@ is its name."),
         ("worksheet_stuck", \.worksheetStuck, "The PDF helper took too long on a page; %@ is the page's number."),
         ("hand_in", \.handIn, "Classroom with [cloud]: the button that hands the notebook in."),
         ("handing_in", \.handingIn, "While a hand-in is saved and put in the outbox."),
         ("hand_in_queued", \.handInQueued, "A hand-in in the outbox, not tried yet."),
         ("hand_in_waiting", \.handInWaiting, "A hand-in waiting in the outbox; %@ is why it has not gone yet."),
         ("hand_in_sent", \.handInSent, "The school's server has the hand-in."),
         ("hand_in_failed", \.handInFailed, "The server did not take the hand-in (a conflict, a refusal); %@ is why."),
         ("hand_in_refused", \.handInRefused, "The tablet could not put the hand-in in its outbox; %@ is why."),
         ("hand_in_closed", \.handInClosed, "After the hand-out's deadline."),
         ("enrol_prompt", \.enrolPrompt, "Beside the enrolment's QR code."),
         ("review_document", \.reviewDocument, "Over a host's document while it is read."),
         ("document_page", \.documentPage, "A document's page; %@ is \"2 / 3\"."),
         ("sign", \.sign, "Documents: the button that opens the signing view."),
         ("read_all_pages", \.readAllPages, "Documents: Sign before every page asked for was shown."),
         ("opening_document", \.openingDocument, "While a host's document opens."),
         ("storage_warning", \.storageWarning, "In red, while the disk refuses ink; %@ is the reason.")]
    }

    /// Fills in a "%d" or "%@" placeholder.
    /// `many` with the count, or `one` when it is 1 (languages with more plural forms than two set both to fit).
    public static func count(_ n: Int, one: String, many: String) -> String { n == 1 ? one : format(many, "\(n)") }

    public static func format(_ template: String, _ value: String) -> String {
        template.replacing("%d", with: value).replacing("%@", with: value)
    }
}
