package mcpserver

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

// wireTypes returns the "type" of every content item of out as it goes on
// the wire.
func wireTypes(t interface {
	require.TestingT
	Helper()
}, out *sdk.CallToolResult) []string {
	t.Helper()
	b, err := json.Marshal(out)
	require.NoError(t, err)
	var m struct {
		Content []struct {
			Type string `json:"type"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	types := make([]string, len(m.Content))
	for i, c := range m.Content {
		types[i] = c.Type
	}
	return types
}

// TestMappingKeepsToTheClientsProtocolVersion: every content kind the
// adapter emits, mapped for each protocol version it negotiates: a kind the
// version lacks (audio before 2025-03-26, resource links before
// 2025-06-18) becomes the nearest kind it has, keeping the audio's bytes
// and the link's fields; the other kinds pass unchanged.
func TestMappingKeepsToTheClientsProtocolVersion(t *testing.T) {
	wav := []byte("RIFFwav")
	items := result.Contents{
		result.Text("t"),
		result.Image([]byte("png"), "image/png"),
		result.Audio(wav, "audio/wav"),
		result.TextResource("test://doc", "text/plain", "hello"),
		result.BlobResource("test://bin", "application/octet-stream", []byte{0, 1}),
		result.ResourceLink("file:///a.txt", "a.txt", "text/plain", "a file"),
	}
	cases := []struct {
		version string
		types   []string
	}{
		{"2024-11-05", []string{"text", "image", "resource", "resource", "resource", "text"}},
		{"2025-03-26", []string{"text", "image", "audio", "resource", "resource", "text"}},
		{"2025-06-18", []string{"text", "image", "audio", "resource", "resource", "resource_link"}},
		{"2025-11-25", []string{"text", "image", "audio", "resource", "resource", "resource_link"}},
		{"2026-07-28", []string{"text", "image", "audio", "resource", "resource", "resource_link"}},
		{"", []string{"text", "image", "audio", "resource", "resource", "resource_link"}},
	}
	for _, c := range cases {
		t.Run("v"+c.version, func(t *testing.T) {
			out, err := toCallToolResultFor(result.Ok[any](items), DisplayValue, shapeFree, c.version)
			require.NoError(t, err)
			assert.Equal(t, c.types, wireTypes(t, out))
			if !has(c.version, versionAudio) {
				assert.Equal(t, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "toolpack://audio/3", MIMEType: "audio/wav", Blob: wav}},
					out.Content[2], "the audio's bytes and MIME type are kept in a blob resource")
			}
			if !has(c.version, versionResourceLink) {
				assert.Equal(t, &sdk.TextContent{Text: "Resource link: file:///a.txt (name: a.txt; MIME type: text/plain; description: a file)"},
					out.Content[5])
			}
		})
	}
}

// TestMappingEmptyAudioForOldClientsIsText: audio without bytes cannot be
// a blob resource (blob is required), so a 2024-11-05 client reads that it
// was left out.
func TestMappingEmptyAudioForOldClientsIsText(t *testing.T) {
	out, err := toCallToolResultFor(result.Ok[any](result.Contents{result.Audio(nil, "audio/ogg")}), DisplayValue, shapeFree, "2024-11-05")
	require.NoError(t, err)
	assert.Equal(t, "[an empty audio item (audio/ogg) was left out: protocol version 2024-11-05 has no audio content]", onlyText(t, out))
}

// TestMappingLinkTextLeavesOutEmptyFields: a link with only its required
// fields reads as its URI and name.
func TestMappingLinkTextLeavesOutEmptyFields(t *testing.T) {
	assert.Equal(t, "Resource link: file:///b (name: b)", linkText(result.ResourceLink("file:///b", "b", "", "")))
}

// TestMappingNoVersionLacksAKindItIsSent (property): whatever the items
// and the version, no item goes out as a kind the version does not have,
// and the number of items is kept.
func TestMappingNoVersionLacksAKindItIsSent(t *testing.T) {
	kinds := []result.Content{
		result.Text("x"), result.Image([]byte{1}, "image/png"), result.Audio([]byte{2}, "audio/wav"), result.Audio(nil, "audio/wav"),
		result.TextResource("u:1", "", "t"), result.BlobResource("u:2", "", []byte{3}), result.ResourceLink("u:3", "n", "", ""),
	}
	since := map[string]string{"audio": versionAudio, "resource_link": versionResourceLink}
	rapid.Check(t, func(rt *rapid.T) {
		items := rapid.SliceOfN(rapid.SampledFrom(kinds), 1, 8).Draw(rt, "items")
		v := rapid.SampledFrom(append(append([]string{}, knownVersions...), "")).Draw(rt, "version")
		out, err := toCallToolResultFor(result.Ok[any](result.Contents(items)), DisplayValue, shapeFree, v)
		require.NoError(rt, err)
		types := wireTypes(rt, out)
		require.Len(rt, types, len(items))
		for _, typ := range types {
			if s, ok := since[typ]; ok {
				require.True(rt, has(v, s), "a %s item sent on protocol %q", typ, v)
			}
		}
	})
}
