package mcpmap

// MetaCarrier is an MCP request's _meta as an OpenTelemetry propagation
// carrier (propagation.TextMapCarrier): W3C trace context travels in it
// as string members ("traceparent": "00-…"), as OpenTelemetry's
// conventions for MCP put it. Get reads string members only; Set writes
// one.
type MetaCarrier map[string]any

// Get returns the string member key, or "".
func (m MetaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

// Set sets member key to value.
func (m MetaCarrier) Set(key, value string) { m[key] = value }

// Keys returns the members' names.
func (m MetaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
