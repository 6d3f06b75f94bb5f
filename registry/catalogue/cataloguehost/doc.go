// Package cataloguehost serves a tools catalogue from a host: every
// enabled catalogue tool becomes a registry tool, listed and callable over
// MCP and the registry's REST API like any other, and kept in step as
// bundles and tools are put, switched and deleted.
//
// A host wires it in four steps:
//
//	funcs := cataloguehost.NewFuncs() // the Go functions go tools name
//	_ = registry.AddFunc(funcs, "add", add, registry.ToolOptions{Description: "Adds a and b"})
//
//	file, _ := catalogue.OpenFileStore(ctx, dir, catalogue.FileOptions{})
//	store, _ := catalogue.WithBuiltIns(ctx, file, catalogue.BuiltInOptions{Dir: dir, HasFunc: funcs.Has, Bundles: builtIns})
//
//	http, _ := httptool.New(httptool.Options{AllowedHosts: hosts, Secrets: secrets})
//	cat, _ := cataloguehost.New(ctx, cataloguehost.Options{Store: store, Registry: reg,
//		Invoker: &cataloguehost.Dispatcher{Funcs: funcs, HTTP: http}})
//
//	api, _ := catalogueapi.New(catalogueapi.Options{Store: cat.Store(), Invoker: dispatcher})
//	mux.Handle("/tools/bundles", http.StripPrefix("/tools", api)) // and the other catalogue routes
//
// Writes made through Catalogue.Store (the REST API's, or a host's own)
// reach the registry before they return, and MCP clients get
// notifications/tools/list_changed. Each reads back only what it touched:
// a tool write that tool, a bundle write the bundles and that bundle's
// tools, so a write costs about the same whatever the catalogue's size.
// Writes made by another process
// sharing the store arrive with an explicit Sync. Follow does it: it
// watches the store (catalogue.Watcher: the file store, the built-ins,
// the PostgreSQL store's change feed), re-reads the bundles each change
// touched in the registry and in any other copy the host keeps (a search
// index), and tries a failed re-read again until it succeeds:
//
//	stop, err := cataloguehost.Follow(ctx, store, cataloguehost.FollowOptions{Logger: log},
//		cat.Reader(),
//		cataloguehost.Reader{Name: "the search index", All: index.Resync, Bundles: index.ResyncBundles})
//	defer stop()
//
// Options.ResyncInterval re-reads on a timer instead, for stores that
// cannot be watched.
//
// # Tool names
//
// MCP tool names are 1 to 128 characters from [A-Za-z0-9_.-], while
// catalogue slugs are Unicode and bundle slugs need not be unique. A
// catalogue tool's registry name is
//
//	{bundle}.{tool}.{version}
//
// where each part keeps ASCII letters, digits and dashes (and the
// version its dots) and writes every other character as "_", its code
// point in lower-case hex, "_": bundle "météo", tool "prévision", version
// "1.0" give "m_e9_t_e9_o.pr_e9_vision.1.0". Slugs never hold dots or
// underscores, so the name tells the three apart and two tools never
// share one. The registry's prefix, if any, is added in front as for
// every tool.
//
//   - When several bundles share a slug, the one that has held it
//     longest (the earliest SlugSince: set by the store when a bundle is
//     created, imported or given another slug; the smaller id on a tie)
//     keeps the plain part and each later one gets "_" and the last 12
//     hex digits of its id: "weather_8f3a91c2d4e5.forecast.1". A bundle
//     that comes later — whatever id it was given (an "old" UUIDv7),
//     whatever createdAt its import carries, or an older bundle renamed
//     to the slug — never takes the name of another bundle's tools, and
//     every host on the same store names them alike.
//   - A name longer than MCP allows keeps its first characters and ends
//     in "_" and 16 hex digits of the SHA-256 of the full name.
//   - A name already taken by a tool of another pack is left out (and
//     logged) rather than shadowing it.
//
// ToolName computes the plain form; Catalogue.Name returns the name a
// tool is served under. Catalogue.Namespace reports whether a name is one
// the catalogue's tools take — {bundle}.{tool}.{version} of any bundle the
// store holds, whether the tool is served now or not — for a host whose
// configuration names catalogue tools (hostconfig.Options.Dynamic), as
// they come and go without the configuration being reloaded.
//
// # Calls
//
// A tool switched off in the catalogue — itself or its bundle — stays in
// the registry switched off (registry.Tool.Disabled): it is not listed
// (tools/list, GET /tools), and a call of it, or of an alias of it, over
// MCP or REST is a failure of type unavailable naming the tool and how to
// switch it on, not "unknown tool"; a go tool whose function the host has
// not registered says that instead. A tool deleted, or of a soft-deleted
// bundle, is gone: calling it is an unknown tool.
//
// A call through the registry validates the arguments against the tool's
// argSchema (every violation listed, as a validation_error), runs the
// tool through the Dispatcher — go tools through Funcs, http tools
// through package httptool, other types through Dispatcher.Types — and
// counts the call in the store's usage metrics (callCount,
// lastCalledAt) without waiting for storage.
//
// Built-in tools are declared with catalogue.WithBuiltIns; Funcs.Spec
// gives the definition of a go tool whose schemas are its function's.
package cataloguehost
