package httptool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry/catalogue"
	"github.com/toolpack-go/toolpack/registry/catalogue/httptool"
)

// The request a call sends is reported with every secret redacted: the
// bearer token, an API key in the query or a header, basic credentials,
// and secrets substituted into the URL, headers or body.
func TestSentRequestRedactsSecrets(t *testing.T) {
	secrets := map[string]string{"TOKEN": "tok-123", "K": "key&=1", "USER": "alice", "PASS": "p:ss w", "HDR": "hdr-secret"}
	cases := []struct {
		name string
		auth *catalogue.HTTPAuth
	}{
		{"bearer", &catalogue.HTTPAuth{Type: catalogue.AuthBearer, Token: "${TOKEN}"}},
		{"apiKey query", &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "query", Name: "api_key", Value: "${K}"}},
		{"apiKey header", &catalogue.HTTPAuth{Type: catalogue.AuthAPIKey, In: "header", Name: "X-Key", Value: "${K}"}},
		{"basic", &catalogue.HTTPAuth{Type: catalogue.AuthBasic, Username: "${USER}", Password: "${PASS}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := newRecorder(t, nil)
			inv := newInvoker(t, httptool.Options{Secrets: secrets})
			tool := httpTool(t, catalogue.HTTPRequest{Method: "POST", URLTemplate: rec.URL + "/items/${id}", Auth: c.auth,
				Query: map[string]string{"q": "${q}"}, Headers: map[string]string{"X-Trace": "${HDR}"}, Body: `{"q": ${q}}`})
			var sent []httptool.SentRequest
			ctx := httptool.WithSentRequest(context.Background(), func(s httptool.SentRequest) { sent = append(sent, s) })
			res, err := inv.Invoke(ctx, tool, json.RawMessage(`{"q":"a b","id":"7"}`))
			require.NoError(t, err)
			require.True(t, res.Success, res.Error)
			require.Len(t, sent, 1)
			s := sent[0]
			all := s.Method + " " + s.URL + " " + s.Body
			for k, vs := range s.Header {
				all += " " + k + ": " + strings.Join(vs, ",")
			}
			for _, v := range secrets {
				assert.NotContains(t, all, v, "secret %q shown", v)
			}
			assert.NotContains(t, all, "a2V5", "no base64 of a secret")
			assert.Equal(t, "POST", s.Method)
			assert.Contains(t, s.URL, "/items/7")
			assert.Contains(t, s.URL, "q=a+b")
			assert.Contains(t, s.Body, `"a b"`)
			assert.Equal(t, "[REDACTED]", s.Header.Get("X-Trace"))
		})
	}
}
