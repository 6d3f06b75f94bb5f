// Package othost serves the ot pack of a host configured with
// registry/hostconfig: one call wires the pack, the snippets, the call
// statistics and the large-output store to the configuration file, and every
// reload (ot.reload, SIGHUP) re-applies them as a whole.
//
// A host that serves a registry over MCP or REST and wants the seed's
// introspection tools writes:
//
//	reg := registry.New(registry.Options{})
//	… add the host's own packs …
//	host, err := hostconfig.NewHost(hostconfig.Options{Path: "config.yaml", Registry: reg})
//	if err != nil { … }
//	host.OnApply("servers", mcpproxy.HostHook(proxy, nil)) // servers:, when the host proxies
//	w, err := othost.Setup(ctx, othost.Options{Registry: reg, Host: host})
//	if err != nil { … }
//	defer w.Close(context.Background()) // a fresh context: Close writes the last statistics
//	if err := host.Reload(ctx); err != nil { … } // the first configuration
//	… add packs that the configuration names (a catalogue) …
//	w.WarnUnserved() // instructions: for a pack, snippet steps for a tool, not served
//
// What each configuration key drives:
//
//	aliases        Registry.SetAliases (hostconfig itself)
//	snippets       the tools snippet.{name} of pack "snippet"; a body that does
//	               not parse refuses the file, naming the file line at fault;
//	               a parameter's example: is the value ot.snippets and the
//	               tool's example call show for it (else the placeholder
//	               <name>, unquoted in the call: any JSON value goes there);
//	               a body calling a tool that is not served is logged as a
//	               warning, at the file line of the step calling it, by
//	               WarnUnserved and at every reload (the tool may come
//	               later: a server still connecting)
//	stats          the statistics middleware (ot.stats): on/off, directory,
//	               flush interval, the context and time estimates
//	output         the large-output store (ot.result): successes whose text
//	               is over max_inline_bytes become a handle object; dir, ttl
//	output.reports_dir  the only directory ot.stats(output=…) writes to
//	instructions, notify, docs   read by ot.packs, ot.help, ot.notify; an
//	               instructions entry naming no served pack nor configured
//	               server is logged as a warning (file, line and key) by
//	               WarnUnserved and at every reload, as a
//	               misspelt pack name would show nowhere
//
// Only what reaches the outermost caller is stored: the steps of a snippet
// (and any tool calling another with its own context) read each other's
// whole values. A call's output goes to the store in force when the call
// returns, so a reload during a long call never makes it come back inline.
//
// Tools whose output schema is not text (an object, a number, an array)
// are never replaced by a handle object: MCP clients check such a tool's
// structured result against its schema. A reload that moves output.dir
// keeps the previous store answering ot.result for the handles it gave
// out until their time to live has passed.
package othost
