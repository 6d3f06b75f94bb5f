package catalogue

import "context"

type calledAsKey struct{}

type calledAs struct {
	key  ToolKey
	name string
}

// WithCalledAs returns ctx telling the runner of the tool key the name it
// is being called by (its registry name, {bundle}.{tool}.{version}), so
// that the runner's failures name the tool as the caller knows it. A host
// that serves catalogue tools sets it for each call (cataloguehost does);
// runners read it with [CalledAs]. It applies to that tool only: a tool
// the runner calls in turn is not given the name.
func WithCalledAs(ctx context.Context, key ToolKey, name string) context.Context {
	return context.WithValue(ctx, calledAsKey{}, calledAs{key: key, name: name})
}

// CalledAs returns the name ctx gives the tool key ([WithCalledAs]), or
// "slug@version" when it gives none.
func CalledAs(ctx context.Context, key ToolKey) string {
	if c, ok := ctx.Value(calledAsKey{}).(calledAs); ok && c.key == key && c.name != "" {
		return c.name
	}
	return key.Slug + "@" + key.Version
}
