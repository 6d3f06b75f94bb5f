package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// The ids the stored-record seeds use.
var (
	fuzzBundleID = uuid.MustParse("01a209e2-7665-7651-a7fd-a83e8ceb8e41")
	fuzzToolID   = uuid.MustParse("01a209e2-7665-7651-a7fd-a83e8ceb8e42")
)

// FuzzDecodeOverlay: the built-ins overlay document (a file on disk, or
// what a keeper returns) never panics its decoder; a document is either
// refused as ErrCorrupt or read into an overlay with every map made, which
// survives a round trip through JSON unchanged.
func FuzzDecodeOverlay(f *testing.F) {
	id := fuzzToolID.String()
	for _, s := range []string{``, `{}`, `null`, `{"enabled":{},"firstSeen":{},"calls":{}}`,
		`{"enabled":{"` + id + `":false},"firstSeen":{"` + id + `":"2026-11-23T15:30:00.123456Z"},` +
			`"calls":{"` + id + `":{"count":3,"last":"2026-11-24T08:00:00+02:00"}},"version":7}`,
		`{"enabled":{"not-a-uuid":true}}`, `{"calls":{"` + id + `":{"count":-1}}}`,
		`{"calls":{"` + id + `":{"count":9223372036854775807,"last":"0001-01-01T00:00:00Z"}}}`,
		`{"firstSeen":{"` + id + `":"2026-13-01T00:00:00Z"}}`, `{"version":1e3}`, `[]`, `{"enabled":{"` + id + `":1}}`,
		`{"enabled":{"` + id + `":true,"` + strings.ToUpper(id) + `":false}}`, `{} x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		ov, err := decodeOverlay(doc)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("refused %q without ErrCorrupt: %v", doc, err)
			}
			return
		}
		if ov.Enabled == nil || ov.FirstSeen == nil || ov.Calls == nil {
			t.Fatalf("accepted %q with a nil map: %+v", doc, ov)
		}
		first, err := json.Marshal(ov)
		if err != nil {
			t.Fatalf("accepted %q, which does not marshal: %v", doc, err)
		}
		again, err := decodeOverlay(first)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("round trip of %q changed the overlay:\n%s\n%s (%v)", doc, first, second, err)
		}
	})
}

// storedTool is a tool record as the file store writes it.
const storedTool = `{
  "id": "01a209e2-7665-7651-a7fd-a83e8ceb8e42",
  "bundleID": "01a209e2-7665-7651-a7fd-a83e8ceb8e41",
  "slug": "echo",
  "version": "1.0",
  "displayName": "Echo",
  "description": "says it back",
  "tags": ["demo"],
  "isEnabled": true,
  "type": "go",
  "argSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
  "goImpl": {"func": "echo"},
  "builtIn": false,
  "createdAt": "2026-11-23T15:30:00.123456Z",
  "modifiedAt": "2026-11-23T15:30:00.123456Z",
  "lastCalledAt": "2026-11-24T08:00:00Z",
  "callCount": 2
}
`

// storedBundle is a bundle record as the file store writes it.
const storedBundle = `{
  "id": "01a209e2-7665-7651-a7fd-a83e8ceb8e41",
  "slug": "web",
  "displayName": "Web",
  "description": "d",
  "isEnabled": true,
  "builtIn": false,
  "createdAt": "2026-11-23T15:30:00Z",
  "modifiedAt": "2026-11-23T15:30:00Z",
  "slugSince": "2026-11-23T15:30:00Z"
}
`

// FuzzStoredRecords: the file store's readers of a stored tool and
// bundle record (checkToolRecord, checkBundleRecord: what readTool and
// readBundle run on a file's bytes) never panic; they refuse a damaged
// record as ErrCorrupt, and a record they accept has the identity its
// place requires and reads back the same once written again.
func FuzzStoredRecords(f *testing.F) {
	for _, s := range []string{storedTool, storedBundle,
		strings.Replace(storedTool, `"type": "go"`, `"type": "ftp"`, 1),
		strings.Replace(storedTool, `"slug": "echo"`, `"slug": "a b"`, 1),
		strings.Replace(storedTool, `"argSchema": {"type": "object", "properties": {"q": {"type": "string"}}},`, `"argSchema": null,`, 1),
		strings.Replace(storedBundle, `"slugSince": "2026-11-23T15:30:00Z"`, `"softDeletedAt": "2026-11-25T00:00:00Z"`, 1),
		strings.Replace(storedBundle, `"createdAt": "2026-11-23T15:30:00Z",`, ``, 1),
		storedTool[:len(storedTool)/2], `{}`, `null`, `[]`, "\x00\xff", "{\"slug\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The file's name follows from what the record says, so that the
		// check of the name can pass.
		var names struct{ Slug, Version string }
		_ = json.Unmarshal(data, &names)
		name := toolFileName(names.Slug, names.Version)

		var tool Tool
		if err := checkToolRecord(data, fuzzBundleID, name, &tool); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("tool record %q refused without ErrCorrupt: %v", data, err)
			}
		} else {
			if tool.ID == uuid.Nil || tool.BundleID != fuzzBundleID || ValidateSlug(tool.Slug) != nil ||
				ValidateVersion(tool.Version) != nil || !tool.Type.Known() || tool.CreatedAt.IsZero() || len(tool.ArgSchema) == 0 {
				t.Fatalf("accepted tool record %q: %+v", data, tool)
			}
			first, err := json.Marshal(tool)
			if err != nil {
				t.Fatalf("accepted tool record %q, which does not marshal: %v", data, err)
			}
			var again Tool
			if err := checkToolRecord(first, fuzzBundleID, name, &again); err != nil {
				t.Fatalf("rewritten tool record %s refused: %v", first, err)
			}
			if second, err := json.Marshal(again); err != nil || !bytes.Equal(first, second) {
				t.Fatalf("tool record round trip:\n%s\n%s (%v)", first, second, err)
			}
		}

		var b Bundle
		if err := checkBundleRecord(data, fuzzBundleID, &b); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("bundle record %q refused without ErrCorrupt: %v", data, err)
			}
			return
		}
		if b.ID != fuzzBundleID || b.CreatedAt.IsZero() || ValidateSlug(b.Slug) != nil || b.SlugSince.IsZero() {
			t.Fatalf("accepted bundle record %q: %+v", data, b)
		}
		first, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("accepted bundle record %q, which does not marshal: %v", data, err)
		}
		var again Bundle
		if err := checkBundleRecord(first, fuzzBundleID, &again); err != nil {
			t.Fatalf("rewritten bundle record %s refused: %v", first, err)
		}
		if second, err := json.Marshal(again); err != nil || !bytes.Equal(first, second) {
			t.Fatalf("bundle record round trip:\n%s\n%s (%v)", first, second, err)
		}
	})
}
