// Removing reserved members from answers and reading the entity tags they carry.

import BreakwaterCore
import Testing

struct AnswerStripperTests {
    private func strip(_ text: String) throws -> (body: String, tags: [String]) {
        let stripped = try #require(AnswerStripper.strip(Array(text.utf8)))
        return (String(decoding: stripped.body, as: UTF8.self), stripped.tags)
    }

    @Test func removesReservedMembersAtEveryDepthAndKeepsTheOrder() throws {
        let result = try strip(
            #"{"data":{"launches":{"__bw_typename":"LaunchConnection","cursor":"81","launches":[{"__bw_typename":"Launch","#
                + #""__bw_id":"100","site":"KSC","rocket":{"__bw_typename":"Rocket","__bw_id":"falcon9","name":"Falcon 9"}},"#
                + #"null,{"__bw_typename":"Launch","__bw_id":"99","site":null,"rocket":null}]}},"extensions":{"x":1.50}}"#)
        #expect(
            result.body
                == #"{"data":{"launches":{"cursor":"81","launches":[{"site":"KSC","rocket":{"name":"Falcon 9"}},null,"#
                + #"{"site":null,"rocket":null}]}},"extensions":{"x":1.50}}"#)
        #expect(result.tags == ["Launch", "Launch:100", "Launch:99", "Rocket", "Rocket:falcon9"])
    }

    @Test func answerWithoutReservedMembersIsReturnedByteForByte() throws {
        let text = "{ \"data\" : {\"launch\": {\"__typename\":\"Launch\", \"id\": 7, \"site\":\"\\u00e9\"}} }"
        let result = try strip(text)
        #expect(result.body == text)
        #expect(result.tags == ["Launch", "Launch:7"])
    }

    @Test func reservedMembersWinOverClientAliasesNamedLikeThem() throws {
        let result = try strip(
            #"{"data":{"launch":{"__bw_typename":"Launch","__bw_id":"92","id":"KSC LC 39A","__typename":"yes"}}}"#)
        #expect(result.body == #"{"data":{"launch":{"id":"KSC LC 39A","__typename":"yes"}}}"#)
        #expect(result.tags == ["Launch", "Launch:92"])
    }

    @Test func clientFieldsFillInWhereNothingWasAdded() throws {
        // The client selected both plainly, or `id` plainly and the rewriter added the typename.
        let result = try strip(
            #"{"data":{"a":{"__typename":"Launch","id":"1"},"b":{"__bw_typename":"Rocket","id":"f9"}}}"#)
        #expect(result.body == #"{"data":{"a":{"__typename":"Launch","id":"1"},"b":{"id":"f9"}}}"#)
        #expect(result.tags == ["Launch", "Launch:1", "Rocket", "Rocket:f9"])
    }

    @Test func severalKeysJoinInAnswerOrderAndANullKeyNamesNoEntity() throws {
        let result = try strip(
            #"{"data":{"p":{"__bw_typename":"Product","__bw_sku__String":"A1","__bw_region__String":"eu"},"#
                + #""q":{"__bw_typename":"Product","__bw_sku__String":null,"__bw_region__String":"eu"},"#
                + #""m":{"__bw_typename":"Mission","name":"x"},"r":{"__bw_typename":"Review","__bw_id__Int_":12}}}"#)
        #expect(result.body == #"{"data":{"p":{},"q":{},"m":{"name":"x"},"r":{}}}"#)
        #expect(result.tags == ["Product", "Product:A1:eu", "Review", "Review:12"])
    }

    @Test func aKeyUnderTwoAliasesCountsOnce() throws {
        // `Launch.id: ID!` in the object's own selection set, `Entity.id: ID` in a fragment on an interface.
        let result = try strip(#"{"data":{"l":{"__bw_typename":"Launch","__bw_id":"92","__bw_id__ID":"92","site":"x"}}}"#)
        #expect(result.body == #"{"data":{"l":{"site":"x"}}}"#)
        #expect(result.tags == ["Launch", "Launch:92"])
    }

    @Test func membersBesideDataAreNotTouched() throws {
        let result = try strip(
            #"{"errors":[{"message":"x","path":["__bw_id"],"extensions":{"__bw_x":1}}],"data":{"l":{"__bw_id":"1"}}}"#)
        #expect(result.body == #"{"errors":[{"message":"x","path":["__bw_id"],"extensions":{"__bw_x":1}}],"data":{"l":{}}}"#)
        #expect(result.tags.isEmpty)
    }

    @Test(arguments: ["", "not json", "[1,2]", #"{"data":"#])
    func nonObjectAnswersGiveNil(text: String) {
        #expect(AnswerStripper.strip(Array(text.utf8)) == nil)
    }

    @Test func answerWithoutDataIsKeptAsItIs() throws {
        let text = #"{"errors":[{"message":"boom"}]}"#
        let result = try strip(text)
        #expect(result.body == text)
        #expect(result.tags.isEmpty)
    }
}

/// The one-pass stripper against the strict parser: it refuses what `JSONParser` refuses, and keeps
/// every byte that is not a reserved member.
struct AnswerStripperValidationTests {
    @Test(arguments: [
        #"{"data":{"a":1,}}"#, #"{"data":[1 2]}"#, #"{"data":01}"#, #"{"data":1.}"#, #"{"data":"\x"}"#,
        "{\"data\":\"\u{01}\"}", #"{"data":tru}"#, #"{"data":{"a" 1}}"#, #"{"data":{}} x"#,
        #"{"data":"\u12"}"#, #"{"data":{"__bw_id":"1""#, "",
    ])
    func malformedAnswersAreRefusedLikeTheParserRefusesThem(text: String) {
        #expect(AnswerStripper.strip(Array(text.utf8)) == nil)
        #expect((try? JSONParser.parse(Array(text.utf8))) == nil)
    }

    @Test func invalidUTF8IsRefused() {
        #expect(AnswerStripper.strip(Array(#"{"data":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)) == nil)
    }

    @Test func membersAreCutWithTheirCommasWhereverTheyStand() throws {
        let cases = [
            (#"{"data":{"__bw_typename":"A","__bw_id":"1"}}"#, #"{"data":{}}"#),
            (#"{"data":{"x":1,"__bw_id":"1","y":2,"__bw_typename":"A"}}"#, #"{"data":{"x":1,"y":2}}"#),
            (#"{ "data" : { "__bw_id" : "1" , "x" : [ {"__bw_typename":"B"} ] } }"#, #"{ "data" : {  "x" : [ {} ] } }"#),
            (#"{"errors":[{"message":"m","__bw_id":1}],"data":null}"#, #"{"errors":[{"message":"m","__bw_id":1}],"data":null}"#),
        ]
        for (answer, client) in cases {
            let stripped = try #require(AnswerStripper.strip(Array(answer.utf8)))
            #expect(String(decoding: stripped.body, as: UTF8.self) == client, "\(answer)")
            #expect((try? JSONParser.parse(stripped.body)) != nil)
        }
        #expect(AnswerStripper.strip(Array(#"{"errors":[],"data":null}"#.utf8))?.hasErrors == true)
        #expect(AnswerStripper.strip(Array(#"["data"]"#.utf8)) == nil, "not an object")
    }

    @Test func escapedTypenamesAndIdsAreDecoded() throws {
        let stripped = try #require(
            AnswerStripper.strip(Array(#"{"data":{"\u005f_bw_typename":"Caf\u00e9","__bw_id":"a\"b"}}"#.utf8)))
        #expect(stripped.tags == ["Café", #"Café:a"b"#])
        #expect(String(decoding: stripped.body, as: UTF8.self) == #"{"data":{}}"#)
    }
}
