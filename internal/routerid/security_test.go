package routerid

// resolveSecurityCases are the attacks docs/router-id.md ("Templates", "Security") refuses, by name, run by
// TestResolve. Each must fail closed with a message that names the problem.
var resolveSecurityCases = []resolveCase{
	{
		name:    "template injection: ${NODE_IP}; rm -rf /",
		in:      Input{Config: Config{RouterID: "${NODE_IP}; rm -rf /"}, NodeName: "worker-1", NodeAddresses: dualStack},
		wantErr: `invalid router ID configuration: routerID "${NODE_IP}; rm -rf /" is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "template injection: command substitution",
		in:      Input{Config: Config{RouterID: "$(hostname -i)"}, NodeName: "worker-1", NodeAddresses: dualStack},
		wantErr: `invalid router ID configuration: routerID "$(hostname -i)" is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "template injection: text/template syntax",
		in:      Input{Config: Config{RouterID: "{{ .Status.Addresses }}"}, NodeName: "worker-1", NodeAddresses: dualStack},
		wantErr: `invalid router ID configuration: routerID "{{ .Status.Addresses }}" is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "template injection: text after an annotation template",
		in:      Input{Config: Config{RouterID: "${node.annotations['a']}']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "a']}" contains a quote`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "template injection: nested template",
		in:      Input{Config: Config{RouterID: "${node.annotations['${NODE_IP}']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "${NODE_IP}" is not a Kubernetes annotation key: [DNS-subdomain prefix/]name of letters, digits, '-', '_' and '.'`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "path traversal: ${node.annotations['../../etc/passwd']}",
		in:      Input{Config: Config{RouterID: "${node.annotations['../../etc/passwd']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "../../etc/passwd" contains '..'`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "path traversal behind a valid prefix",
		in:      Input{Config: Config{RouterID: "${node.annotations['kbgp.io/../../etc/passwd']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "kbgp.io/../../etc/passwd" contains '..'`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "invalid annotation key: key\\x00hidden",
		in:      Input{Config: Config{RouterID: "${node.annotations['key\x00hidden']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "key\x00hidden" contains a control character`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "invalid annotation key: newline",
		in:      Input{Config: Config{RouterID: "${node.annotations['key\nhidden']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "key\nhidden" contains a control character`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "pool too small: /32",
		in:      Input{Config: Config{RouterIDPool: "192.0.2.1/32"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerIDPool "192.0.2.1/32" holds 1 addresses; it needs a prefix length of /24 or shorter (at least 256 addresses) so that nodes do not share a router ID`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "pool too small: /31",
		in:      Input{Config: Config{RouterIDPool: "192.0.2.0/31"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerIDPool "192.0.2.0/31" holds 2 addresses; it needs a prefix length of /24 or shorter (at least 256 addresses) so that nodes do not share a router ID`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "long input: 10KB routerID (rejected before regex)",
		in:      Input{Config: Config{RouterID: annotationTemplate(kib10)}, NodeName: "worker-1"},
		wantErr: "invalid router ID configuration: routerID is 10263 bytes, longer than the 256 allowed",
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "long input: 10KB annotation value (rejected before parsing)",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": kib10}},
		wantErr: "Template resolution failed: annotation 'rid' value is 10240 bytes, longer than the 256 allowed",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "unicode in annotation key (reject non-ASCII)",
		in:      Input{Config: Config{RouterID: "${node.annotations['ключ']}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID template: annotation key "ключ" is not ASCII`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name:    "unicode look-alike quote in annotation key",
		in:      Input{Config: Config{RouterID: "${node.annotations['a’]}"}, NodeName: "worker-1"},
		wantErr: `invalid router ID configuration: routerID "${node.annotations['a’]}" is not an IPv4 address or exactly one of ${NODE_IP}, ${NODE_IPV4}, ${NODE_EXTERNAL_IP}, ${node.annotations['KEY']}`,
		wantIs:  ErrInvalidConfig,
	},
	{
		name: "newline in annotation value (sanitised before logging)",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": "10.0.0.9\nlevel=info msg=\"fake\"\r\x00"}},
		wantErr: `Template resolution failed: annotation 'rid' value '10.0.0.9_level=info msg="fake"__' is not an IPv4 address`,
		wantIs:  ErrTemplateResolution,
	},
	{
		name: "newline in the zone of an IPv6 annotation value",
		in: Input{Config: Config{RouterID: "${node.annotations['rid']}"}, NodeName: "worker-1",
			NodeAnnotations: map[string]string{"rid": "fe80::1%eth0\nlevel=error msg=forged"}},
		wantErr: "Template resolution failed: annotation 'rid': router ID fe80::1 is not an IPv4 address: BGP router IDs are 32-bit",
		wantIs:  ErrTemplateResolution,
	},
	{
		name:    "node name with a newline",
		in:      Input{NodeName: "worker-1\nlevel=error"},
		wantErr: `invalid router ID configuration: node name "worker-1\nlevel=error" is not a DNS subdomain`,
		wantIs:  ErrInvalidConfig,
	},
}
