package result

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ContentType names the kind of one Content item.
type ContentType string

// The kinds of content a tool can return.
const (
	// TextContent is plain text (Content.Text).
	TextContent ContentType = "text"
	// ImageContent is an image: Content.Data with Content.MIMEType.
	ImageContent ContentType = "image"
	// AudioContent is audio: Content.Data with Content.MIMEType.
	AudioContent ContentType = "audio"
	// ResourceContent is an embedded resource: Content.URI with either
	// Content.Text (a text resource) or Content.Data (a blob), and an
	// optional Content.MIMEType.
	ResourceContent ContentType = "resource"
	// ResourceLinkContent points at a resource by Content.URI and
	// Content.Name, with optional Content.MIMEType and Content.Description.
	ResourceLinkContent ContentType = "resource_link"
)

// Content is one item of rich content: text, an image, audio, an embedded
// resource or a link to a resource. Build items with Text, Image, Audio,
// TextResource, BlobResource and ResourceLink, and return them with Rich.
//
// In JSON an item is an object with "type" and the fields of its kind;
// binary data is base64 (standard encoding) under "data", with "mimeType":
//
//	{"type":"image","data":"iVBORw0…","mimeType":"image/png"}
//	{"type":"resource","uri":"file:///a.txt","mimeType":"text/plain","text":"…"}
type Content struct {
	// Type is the kind of the item.
	Type ContentType `json:"type"`
	// Text is the text of a TextContent item or of a text resource.
	Text string `json:"text,omitempty"`
	// Data is the bytes of an image, audio or blob resource; base64 in JSON.
	Data []byte `json:"data,omitempty"`
	// MIMEType is the media type of Data (required for images and audio)
	// or of a resource.
	MIMEType string `json:"mimeType,omitempty"`
	// URI identifies a resource or a resource link.
	URI string `json:"uri,omitempty"`
	// Name is a resource link's name.
	Name string `json:"name,omitempty"`
	// Description optionally describes a resource link.
	Description string `json:"description,omitempty"`
}

// Contents is a list of content items, the value of a rich Result. Adapters
// recognise it: MCP shows each item as an MCP content item, REST answers
// with its JSON form (base64 data with MIME types).
type Contents []Content

// ErrInvalidContent is wrapped by the errors of Content.Validate.
var ErrInvalidContent = errors.New("result: invalid content")

// Text returns a text item.
func Text(s string) Content { return Content{Type: TextContent, Text: s} }

// Image returns an image item holding data of media type mime (such as
// "image/png").
func Image(data []byte, mime string) Content {
	return Content{Type: ImageContent, Data: data, MIMEType: mime}
}

// Audio returns an audio item holding data of media type mime (such as
// "audio/wav").
func Audio(data []byte, mime string) Content {
	return Content{Type: AudioContent, Data: data, MIMEType: mime}
}

// TextResource returns an embedded text resource identified by uri; mime
// may be empty.
func TextResource(uri, mime, text string) Content {
	return Content{Type: ResourceContent, URI: uri, MIMEType: mime, Text: text}
}

// BlobResource returns an embedded binary resource identified by uri; mime
// may be empty.
func BlobResource(uri, mime string, data []byte) Content {
	return Content{Type: ResourceContent, URI: uri, MIMEType: mime, Data: data}
}

// ResourceLink returns a link to the resource uri named name; mime and
// description may be empty.
func ResourceLink(uri, name, mime, description string) Content {
	return Content{Type: ResourceLinkContent, URI: uri, Name: name, MIMEType: mime, Description: description}
}

// Rich returns a successful Result whose value is the given items, in
// order. A handler returns it like any Result:
//
//	return result.Rich(result.Text("chart:"), result.Image(png, "image/png")), nil
func Rich(items ...Content) Result[Contents] {
	return Ok(Contents(items))
}

// Validate reports whether c holds what its Type needs: an error wrapping
// ErrInvalidContent names the missing or unexpected field.
func (c Content) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s item: %s", ErrInvalidContent, c.Type, fmt.Sprintf(format, a...))
	}
	switch c.Type {
	case TextContent:
		if c.Data != nil {
			return bad("field data is not allowed (use an image, audio or resource item)")
		}
	case ImageContent, AudioContent:
		if c.MIMEType == "" {
			return bad("field mimeType is required")
		}
		if c.Text != "" {
			return bad("field text is not allowed")
		}
	case ResourceContent:
		if c.URI == "" {
			return bad("field uri is required")
		}
		if c.Text != "" && c.Data != nil {
			return bad("fields text and data are exclusive")
		}
	case ResourceLinkContent:
		if c.URI == "" || c.Name == "" {
			return bad("fields uri and name are required")
		}
		if c.Text != "" || c.Data != nil {
			return bad("fields text and data are not allowed")
		}
	default:
		return fmt.Errorf("%w: field type is %q, expected one of text, image, audio, resource, resource_link", ErrInvalidContent, c.Type)
	}
	return nil
}

// Validate checks every item; the error names the index of the first bad one.
func (cs Contents) Validate() error {
	for i, c := range cs {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("item %d: %w", i, err)
		}
	}
	return nil
}

// UnmarshalJSON reads one item and validates it, so a decoded Content is
// always usable.
func (c *Content) UnmarshalJSON(b []byte) error {
	type plain Content
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidContent, err)
	}
	if err := Content(p).Validate(); err != nil {
		return err
	}
	*c = Content(p)
	return nil
}

// MarshalJSON writes the item's JSON form (see Content); it does not
// validate.
func (c Content) MarshalJSON() ([]byte, error) {
	type plain Content
	return json.Marshal(plain(c))
}

// contentSchema is the JSON Schema of one Content item.
const contentSchema = `{"type":"object","properties":{` +
	`"type":{"type":"string","enum":["text","image","audio","resource","resource_link"]},` +
	`"text":{"type":"string"},` +
	`"data":{"type":"string","contentEncoding":"base64"},` +
	`"mimeType":{"type":"string"},` +
	`"uri":{"type":"string"},` +
	`"name":{"type":"string"},` +
	`"description":{"type":"string"}},` +
	`"required":["type"],"additionalProperties":false}`

// JSONSchema returns the JSON Schema of the item's JSON form, so that a
// tool returning Contents gets an output schema (and REST an OpenAPI
// description) saying so.
func (Content) JSONSchema() json.RawMessage { return json.RawMessage(contentSchema) }
