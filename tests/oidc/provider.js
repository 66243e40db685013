// A real OpenID provider (npm `oidc-provider`, OpenID Certified) for tests/tests/jwt.rs, on 127.0.0.1 only.
//
//   node provider.js <port>     prints `ready <issuer>` once it listens; `port` 0 picks a free one.
//
// Issuer `http://127.0.0.1:<port>`, OpenID Connect discovery at /.well-known/openid-configuration, keys at /jwks.
// Two clients may use `client_credentials` (secret `<id>-secret`): `staff` and `reader`. A token asked for with
// `resource=https://blog.example` (the default) or `https://other.example` is a JWT access token (RS256, 300 s)
// whose `aud` is that resource, with these claims besides the standard ones:
//   staff:  https://blog.example/staff: true, https://blog.example/tenant: "acme", realm_access.roles: ["admin"]
//   reader: https://blog.example/tenant: "acme", realm_access.roles: ["reader"]
//
// MCP authorization (tests/mcp/check_oauth.py): with `MCP_RESOURCE=<the MCP endpoint's URL>` in the environment,
// that resource is accepted too (scopes `mcp:tools posts:read posts:write`), and a public client may register
// itself (dynamic client registration, `token_endpoint_auth_method: none`) and use the authorization code grant
// with PKCE (S256). The login is oidc-provider's development interaction, scriptable over HTTP: the login form
// (`prompt=login`, `login=<user>`, any `password`), then the consent form (`prompt=consent`). Users and the claims
// of their access tokens: `bob` (none besides `sub`), `alice` (`https://blog.example/staff: true`); any other login
// is a user with no extra claim. The `client_credentials` clients may then ask for `mcp:tools` too (the Rust tests of
// the gate, tests/tests/suite/mcp_oauth.rs).
//
// The signing keys are RSA keys generated at start (never stored). Test-only endpoints, not oidc-provider's:
//   POST /__rotate   a new signing key, published first and used from now on; the older keys stay published
//   POST /__retire   only the newest key stays published
//   GET  /__stats    {"jwks_fetches": <GET /jwks answered so far>, "kids": [published kids, newest first]}
//   POST /__sign     body {"claims": {...}, "header": {...}}: a JWT signed by the current key (hostile claims)
//   POST /__hs256    body {"claims": {...}}: an HS256 JWT whose secret is the current key's public PEM, with its kid
import crypto from 'node:crypto';
import http from 'node:http';

import * as jose from 'jose';
import Provider, { errors } from 'oidc-provider';

const MCP_RESOURCE = process.env.MCP_RESOURCE;
const RESOURCES = ['https://blog.example', 'https://other.example', ...(MCP_RESOURCE ? [MCP_RESOURCE] : [])];
const USERS = { alice: { 'https://blog.example/staff': true }, bob: {} };
const EXTRA = {
  staff: {
    'https://blog.example/staff': true,
    'https://blog.example/tenant': 'acme',
    realm_access: { roles: ['admin'] },
  },
  reader: { 'https://blog.example/tenant': 'acme', realm_access: { roles: ['reader'] } },
};

let keys = []; // private JWKs, newest first
let generated = 0;
let jwksFetches = 0;
let current; // the oidc-provider instance serving the current keys

function newKey() {
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  generated += 1;
  return { ...privateKey.export({ format: 'jwk' }), kid: `key-${generated}`, alg: 'RS256', use: 'sig' };
}

function build(issuer) {
  const client = (id) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    scope: MCP_RESOURCE ? 'posts:read posts:write mcp:tools' : 'posts:read posts:write',
  });
  return new Provider(issuer, {
    clients: [client('staff'), client('reader')],
    jwks: { keys },
    scopes: ['openid', 'offline_access', 'posts:read', 'posts:write', 'mcp:tools'],
    pkce: { required: () => true },
    features: {
      clientCredentials: { enabled: true },
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCES[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!RESOURCES.includes(indicator)) throw new errors.InvalidTarget();
          return {
            scope: indicator === MCP_RESOURCE ? 'mcp:tools posts:read posts:write' : 'posts:read posts:write',
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: 300,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    extraTokenClaims: (_ctx, token) => (token.accountId ? USERS[token.accountId] : EXTRA[token.clientId]),
  });
}

async function body(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
}

function json(response, value) {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

const b64 = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function testOnly(request, response, issuer) {
  const path = new URL(request.url, issuer).pathname;
  if (request.method === 'POST' && path === '/__rotate') {
    keys = [newKey(), ...keys];
    current = build(issuer).callback();
    return json(response, { kids: keys.map((k) => k.kid) });
  }
  if (request.method === 'POST' && path === '/__retire') {
    keys = keys.slice(0, 1);
    current = build(issuer).callback();
    return json(response, { kids: keys.map((k) => k.kid) });
  }
  if (path === '/__stats') return json(response, { jwks_fetches: jwksFetches, kids: keys.map((k) => k.kid) });
  if (request.method === 'POST' && path === '/__sign') {
    const { claims, header = {} } = await body(request);
    const key = await jose.importJWK(keys[0], 'RS256');
    const token = await new jose.SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: keys[0].kid, ...header })
      .sign(key);
    return json(response, { token });
  }
  if (request.method === 'POST' && path === '/__hs256') {
    const { claims } = await body(request);
    const pem = crypto.createPublicKey({ key: keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const signed = `${b64({ alg: 'HS256', typ: 'at+jwt', kid: keys[0].kid })}.${b64(claims)}`;
    const mac = crypto.createHmac('sha256', pem).update(signed).digest('base64url');
    return json(response, { token: `${signed}.${mac}` });
  }
  return false;
}

const server = http.createServer(async (request, response) => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  try {
    if (request.url.startsWith('/__')) {
      if ((await testOnly(request, response, issuer)) === false) {
        response.writeHead(404);
        response.end();
      }
      return;
    }
    if (request.method === 'GET' && new URL(request.url, issuer).pathname === '/jwks') jwksFetches += 1;
    current(request, response);
  } catch (error) {
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(String(error));
  }
});

server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  keys = [newKey()];
  current = build(issuer).callback();
  process.stdout.write(`ready ${issuer}\n`);
});
