package result_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/toolpack-go/toolpack/result"
)

// TestRichJSONForm: a rich Result keeps the Result's JSON form, with each
// item as {"type":…} and binary data in standard base64 beside its MIME
// type.
func TestRichJSONForm(t *testing.T) {
	r := result.Rich(
		result.Text("chart:"),
		result.Image([]byte{1, 2, 3}, "image/png"),
		result.Audio([]byte("RIFF"), "audio/wav"),
		result.TextResource("test://t", "text/plain", "hi"),
		result.BlobResource("test://b", "application/octet-stream", []byte{0xff}),
		result.ResourceLink("file:///a", "a", "text/plain", "the a file"),
	)
	s, err := r.JSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"success":true,"value":[
		{"type":"text","text":"chart:"},
		{"type":"image","data":"AQID","mimeType":"image/png"},
		{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},
		{"type":"resource","uri":"test://t","mimeType":"text/plain","text":"hi"},
		{"type":"resource","uri":"test://b","mimeType":"application/octet-stream","data":"/w=="},
		{"type":"resource_link","uri":"file:///a","name":"a","mimeType":"text/plain","description":"the a file"}]}`, s)
	var back result.Result[result.Contents]
	require.NoError(t, json.Unmarshal([]byte(s), &back))
	assert.Equal(t, r, back)
}

// TestPlainResultJSONUnchanged: results that are not rich keep exactly
// their former JSON form.
func TestPlainResultJSONUnchanged(t *testing.T) {
	s, err := result.Ok("x").WithMessage("m").JSON()
	require.NoError(t, err)
	assert.Equal(t, `{"success":true,"value":"x","message":"m"}`, s)
}

// TestContentValidateNamesTheField: an item missing what its kind needs is
// refused with ErrInvalidContent and the field's name.
func TestContentValidateNamesTheField(t *testing.T) {
	cases := []struct {
		c     result.Content
		field string
	}{
		{result.Image([]byte{1}, ""), "mimeType"},
		{result.Audio([]byte{1}, ""), "mimeType"},
		{result.TextResource("", "text/plain", "x"), "uri"},
		{result.ResourceLink("u", "", "", ""), "name"},
		{result.Content{Type: "video"}, "type"},
		{result.Content{Type: result.TextContent, Data: []byte{1}}, "data"},
		{result.Content{Type: result.ResourceContent, URI: "u", Text: "t", Data: []byte{1}}, "exclusive"},
	}
	for _, c := range cases {
		err := c.c.Validate()
		require.ErrorIs(t, err, result.ErrInvalidContent, "%+v", c.c)
		assert.Contains(t, err.Error(), c.field)
	}
	err := result.Contents{result.Text("ok"), result.Image(nil, "")}.Validate()
	require.ErrorIs(t, err, result.ErrInvalidContent)
	assert.Contains(t, err.Error(), "item 1")
	require.NoError(t, result.Contents{result.Text("ok"), result.Image([]byte{1}, "image/png")}.Validate())
}

// TestContentUnmarshalRejectsInvalid: decoding refuses bad base64 and items
// that do not validate, naming the problem.
func TestContentUnmarshalRejectsInvalid(t *testing.T) {
	var c result.Content
	require.ErrorIs(t, json.Unmarshal([]byte(`{"type":"image","data":"%%%","mimeType":"image/png"}`), &c), result.ErrInvalidContent)
	err := json.Unmarshal([]byte(`{"type":"image","data":"AQID"}`), &c)
	require.ErrorIs(t, err, result.ErrInvalidContent)
	assert.Contains(t, err.Error(), "mimeType")
}

// TestContentRoundTripProperty: every valid item survives its JSON form.
func TestContentRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOfN(rapid.Byte(), 1, 64).Draw(t, "data")
		mime := rapid.SampledFrom([]string{"image/png", "audio/wav", "application/pdf"}).Draw(t, "mime")
		str := rapid.String().Draw(t, "s")
		uri := "test://" + rapid.StringMatching(`[a-z0-9/]{1,20}`).Draw(t, "uri")
		c := rapid.SampledFrom([]result.Content{
			result.Text(str),
			result.Image(data, mime),
			result.Audio(data, mime),
			result.TextResource(uri, mime, str),
			result.BlobResource(uri, mime, data),
			result.ResourceLink(uri, "n"+str, mime, str),
		}).Draw(t, "item")
		b, err := json.Marshal(c)
		require.NoError(t, err)
		var back result.Content
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, c, back)
	})
}
