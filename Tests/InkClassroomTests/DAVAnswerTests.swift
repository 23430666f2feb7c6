// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import InkClassroom

/// PROPFIND answers as Nextcloud and WsgiDAV write them, and as a hostile server might.
struct DAVAnswerTests {
    static let nextcloud = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:oc="http://owncloud.org/ns">
         <d:response><d:href>/remote.php/dav/files/tablet-07/Class%207b/Hand-out/</d:href>
          <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype><d:getetag>&quot;65a1f0&quot;</d:getetag></d:prop>
           <d:status>HTTP/1.1 200 OK</d:status></d:propstat>
          <d:propstat><d:prop><d:getcontentlength/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
         </d:response>
         <d:response><d:href>/remote.php/dav/files/tablet-07/Class%207b/Hand-out/Br%C3%BCche%20%26%20Ma%C3%9Fe.pdf</d:href>
          <d:propstat><d:prop><d:resourcetype/><d:getetag>&quot;e3b0c4&quot;</d:getetag><d:getcontentlength>48213</d:getcontentlength>
           <d:getlastmodified>Fri, 27 Nov 2026 08:12:00 GMT</d:getlastmodified><oc:getetag>"not-this-one"</oc:getetag></d:prop>
           <d:status>HTTP/1.1 200 OK</d:status></d:propstat>
         </d:response>
        </d:multistatus>
        """

    @Test func nextcloudsAnswerGivesTheFolderAndItsFilesWithQuotedETags() throws {
        let resources = try DAVMultistatus.parse(Array(Self.nextcloud.utf8), maxResources: 10)
        #expect(resources.count == 2)
        #expect(resources[0] == DAVResource(path: "/remote.php/dav/files/tablet-07/Class 7b/Hand-out/", isFolder: true, etag: "\"65a1f0\""))
        #expect(resources[1].name == "Brüche & Maße.pdf")
        #expect(resources[1].etag == "\"e3b0c4\"")   // DAV:getetag, not owncloud's element of the same name
        #expect(resources[1].bytes == 48213)
        #expect(!resources[1].isFolder)
    }

    @Test func wsgidavsUnquotedETagsAndWholeURLsAreTakenTheSameWay() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8" ?><ns0:multistatus xmlns:ns0="DAV:"><ns0:response>\
            <ns0:href>https://cloud.example:8443/remote.php/dav/files/t/a.pdf</ns0:href><ns0:propstat><ns0:prop>\
            <ns0:resourcetype /><ns0:getetag>5891b5</ns0:getetag><ns0:getcontentlength>6</ns0:getcontentlength></ns0:prop>\
            <ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response></ns0:multistatus>
            """
        let resources = try DAVMultistatus.parse(Array(xml.utf8), maxResources: 10)
        #expect(resources == [DAVResource(path: "/remote.php/dav/files/t/a.pdf", isFolder: false, etag: "\"5891b5\"", bytes: 6)])
    }

    @Test func propertiesUnderA404PropstatAreNotTaken() throws {
        let xml = """
            <multistatus xmlns="DAV:"><response><href>/f/x.pdf</href>\
            <propstat><prop><getcontentlength>99</getcontentlength><getetag>"e"</getetag></prop><status>HTTP/1.1 404 Not Found</status></propstat>\
            </response></multistatus>
            """
        let resources = try DAVMultistatus.parse(Array(xml.utf8), maxResources: 10)
        #expect(resources == [DAVResource(path: "/f/x.pdf", isFolder: false)])
    }

    @Test func hostileAnswersAreRefusedWithTheReason() {
        let cases: [(String, String)] = [
            ("<?xml version=\"1.0\"?><!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]><multistatus xmlns=\"DAV:\">&b;</multistatus>",
             "it declares a document type (an answer has none)"),
            ("<multistatus xmlns=\"DAV:\"><response><href>/a/b%2Fc.pdf</href></response></multistatus>",
             "an href that is not a percent-encoded UTF-8 path: \"/a/b%2Fc.pdf\""),
            ("<multistatus xmlns=\"DAV:\"><response><href>/a/b%0A.pdf</href></response></multistatus>",
             "an href that is not a percent-encoded UTF-8 path: \"/a/b%0A.pdf\""),
            ("<multistatus xmlns=\"DAV:\"><response><href>/a/%FF.pdf</href></response></multistatus>",
             "an href that is not a percent-encoded UTF-8 path: \"/a/%FF.pdf\""),
            ("<multistatus xmlns=\"DAV:\"><response></response></multistatus>", "a response without an href"),
            ("<multistatus xmlns=\"DAV:\"><response><href>/a</href>", "not well-formed XML at line 1: no element found"),
            ("<other xmlns=\"DAV:\"/>", "no DAV:multistatus element"),
            ("<multistatus xmlns=\"DAV:\"><response><href>" + String(repeating: "a", count: 5000) + "</href></response></multistatus>",
             "an element's text is over 4096 bytes"),
            ("<multistatus xmlns=\"DAV:\">" + String(repeating: "<response><href>/x</href></response>", count: 4) + "</multistatus>",
             "more than 3 entries"),
        ]
        for (xml, problem) in cases {
            #expect(throws: DAVAnswerError(problem: problem)) { try DAVMultistatus.parse(Array(xml.utf8), maxResources: 3) }
        }
    }

    @Test func namesAreEncodedSegmentBySegmentAndDecodedBack() {
        #expect(PercentEncoding.encodeSegment("Brüche & Maße #2/3.pdf") == "Br%C3%BCche%20%26%20Ma%C3%9Fe%20%232%2F3.pdf")
        #expect(PercentEncoding.encodePath("Class 7b/Hand-in") == "Class%207b/Hand-in")
        #expect(PercentEncoding.decodePath("/Class%207b/Br%c3%bcche.pdf") == "/Class 7b/Brüche.pdf")
        #expect(PercentEncoding.decodePath("/bad%2") == nil)
        #expect(PercentEncoding.urlPath("https://h:1/a/b/") == "/a/b/")
        #expect(PercentEncoding.urlPath("/a") == "/a")
    }
}
