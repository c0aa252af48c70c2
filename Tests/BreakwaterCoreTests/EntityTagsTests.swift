// Entity tags drawn from a response's data (docs/SCHEMA.md).

import BreakwaterCore
import Testing

struct EntityTagsTests {
    func tags(_ json: String) throws -> [String] {
        EntityTags.extract(from: try JSONParser.parse(json))
    }

    @Test func tagsEveryIdentifiedObjectOfANestedLaunchesResponse() throws {
        let data = #"""
            {"launches": {"cursor": "c1", "hasMore": true, "launches": [
              {"__typename": "Launch", "id": "92", "site": "KSC",
               "mission": {"__typename": "Mission", "name": "Starlink"},
               "rocket": {"__typename": "Rocket", "id": "falcon9", "name": "Falcon 9"}},
              {"__typename": "Launch", "id": 91, "rocket": {"__typename": "Rocket", "id": "falcon9"}},
              {"__typename": "Launch", "id": "92"}
            ]},
            "me": {"__typename": "User", "id": null},
            "untyped": {"id": "5"},
            "nested": [[{"__typename": "Deep", "id": 1.5e3}]]}
            """#
        #expect(
            try tags(data) == ["Deep", "Deep:1.5e3", "Launch", "Launch:91", "Launch:92", "Rocket", "Rocket:falcon9"])
    }

    @Test(arguments: [
        #"null"#, #"{}"#, #"[]"#, #"{"a": [1, "x", true]}"#,
        #"{"__typename": 5, "id": "1"}"#, #"{"__typename": "Launch", "id": true}"#,
        #"{"__typename": "", "id": "1"}"#, #"{"__typename": "Launch", "id": ""}"#,
        #"{"__typename": "Launch", "id": {"value": "1"}}"#,
    ])
    func objectsWithoutTypeAndIdYieldNothing(data: String) throws {
        #expect(try tags(data) == [])
    }

    @Test func topLevelObjectCountsToo() throws {
        #expect(try tags(#"{"__typename": "Query", "id": "root"}"#) == ["Query", "Query:root"])
    }

    @Test func boundedKeepingTypeTags() throws {
        let launches = (0..<1_500).map { #"{"__typename": "Launch", "id": "\#($0)"}"# }
        let rockets = (0..<1_500).map { #"{"__typename": "Rocket", "id": "\#($0)"}"# }
        let extracted = try tags("[" + (launches + rockets).joined(separator: ",") + "]")
        #expect(extracted.count == EntityTags.limit)
        #expect(extracted.contains("Launch"))
        #expect(extracted.contains("Rocket"))
        #expect(extracted == extracted.sorted())
        #expect(Set(extracted).count == extracted.count)
    }
}
