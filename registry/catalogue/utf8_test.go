package catalogue

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A body that is not UTF-8 is refused — encoding/json would have made
// U+FFFD of the bytes before checkText and checkLabel could see them —
// naming the field that holds the bytes and their offset, never quoting
// them: in a tool body, a bundle body and a PATCH body.
func TestDecode_InvalidUTF8Refused(t *testing.T) {
	tool := func(displayName string) string {
		return `{"displayName":"` + displayName + `","isEnabled":true,"type":"go","goImpl":{"func":"f"},"argSchema":{"type":"object"}}`
	}
	_, err := DecodeToolSpec(strings.NewReader(tool("T\xff\xfe")))
	f := decodeErrFields(t, err)
	require.Len(t, f, 1, "%v", err)
	assert.Contains(t, f["displayName"], "expected text of valid UTF-8")
	assert.Contains(t, f["displayName"], "at byte 17")

	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"x","isEnabled":true,"type":"go","goImpl":{"func":"f` + "\xc3" + `"},"argSchema":{"type":"object"}}`))
	assert.Contains(t, decodeErrFields(t, err), "goImpl.func")

	_, err = DecodeToolSpec(strings.NewReader(`{"displayName":"x","isEnabled":true,"type":"go","goImpl":{"func":"f"},"argSchema":{"type":"object","properties":{"q` + "\xe2\x82" + `":{}}}}`))
	assert.Contains(t, decodeErrFields(t, err)["argSchema.properties"], "expected keys of valid UTF-8")

	_, err = DecodeBundleSpec(strings.NewReader("{\"slug\":\"b\",\"displayName\":\"B\xff\",\"isEnabled\":true}"))
	f = decodeErrFields(t, err)
	assert.Contains(t, f["displayName"], "expected text of valid UTF-8")

	_, err = DecodeEnabledPatch(strings.NewReader("{\"isEnabled\":true,\"\xff\":1}"))
	assert.Contains(t, decodeErrFields(t, err)[""], "expected keys of valid UTF-8")

	for _, body := range []string{tool("T\xff\xfe"), "{\"slug\":\"b\xff\"}"} {
		_, err := DecodeToolSpec(strings.NewReader(body))
		require.Error(t, err)
		assert.True(t, utf8.ValidString(err.Error()), "the bytes are echoed: %q", err.Error())
	}

	// Valid UTF-8 is kept as sent.
	spec, err := DecodeToolSpec(strings.NewReader(tool("Caf\u00e9 \u5de5\u5177")))
	require.NoError(t, err)
	assert.Equal(t, "Caf\u00e9 \u5de5\u5177", spec.DisplayName)
}
