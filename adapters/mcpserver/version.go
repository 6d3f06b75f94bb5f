package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolpack-go/toolpack/result"
)

// The protocol versions from which the content kinds the adapter emits
// exist. Image, text and embedded resources (text or blob) are in every
// version the SDK speaks (2024-11-05 on).
const (
	// versionAudio is the first protocol version with audio content.
	versionAudio = "2025-03-26"
	// versionResourceLink is the first protocol version with resource
	// links.
	versionResourceLink = "2025-06-18"
)

// knownVersions are the protocol versions the SDK speaks.
var knownVersions = sdk.SupportedProtocolVersions()

// clientVersion is the protocol version whose content kinds a call's
// result must keep to: the version the client asked for in initialize
// (or, from 2026-07-28, names in the request's _meta) when the SDK speaks
// it: the version the SDK negotiated, or, for a server narrowed to fewer
// versions, the client's own (no older than the negotiated one, and the
// client reads its own version's content kinds). Anything else — no session, no initialize, a version the
// SDK does not know, for which the SDK answers with its newest — is ""
// and means the newest: nothing is converted.
func clientVersion(req *sdk.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	v := req.ProtocolVersion()
	if !slices.Contains(knownVersions, v) {
		return ""
	}
	return v
}

// has reports whether protocol version v ("" for the newest) has the
// feature introduced in version since. Versions are dates, so they
// compare as strings.
func has(v, since string) bool { return v == "" || v >= since }

// audioResourceURI is the URI of the embedded resource that carries an
// audio item to a client whose protocol version predates audio content;
// n is the item's position in the result, from 1.
func audioResourceURI(n int) string { return fmt.Sprintf("toolpack://audio/%d", n) }

// downgradedContent is the MCP content item of one valid result.Content
// (item n of the result, from 1) for a client on protocol version v:
// sdkContent's item when v has its kind, otherwise the nearest kind v has
// that keeps what the item holds:
//
//   - audio before 2025-03-26: an embedded blob resource with the same
//     bytes and MIME type (URI toolpack://audio/n); audio without bytes
//     becomes a text item saying what was left out;
//   - a resource link before 2025-06-18: a text item with the link's URI,
//     name, MIME type and description (a link has no contents to embed).
func downgradedContent(c result.Content, v string, n int) sdk.Content {
	switch {
	case c.Type == result.AudioContent && !has(v, versionAudio):
		if len(c.Data) == 0 {
			return &sdk.TextContent{Text: fmt.Sprintf("[an empty audio item (%s) was left out: protocol version %s has no audio content]", c.MIMEType, v)}
		}
		return &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: audioResourceURI(n), MIMEType: c.MIMEType, Blob: c.Data}}
	case c.Type == result.ResourceLinkContent && !has(v, versionResourceLink):
		return &sdk.TextContent{Text: linkText(c)}
	default:
		return sdkContent(c)
	}
}

// linkText is the text that stands for a resource link for a client whose
// protocol version has none.
func linkText(c result.Content) string {
	var b strings.Builder
	b.WriteString("Resource link: ")
	b.WriteString(c.URI)
	sep := " ("
	field := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		sep = "; "
	}
	field("name", c.Name)
	field("MIME type", c.MIMEType)
	field("description", c.Description)
	if sep == "; " {
		b.WriteString(")")
	}
	return b.String()
}
