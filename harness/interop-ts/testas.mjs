// testas.mjs - a local OAuth 2.1 authorization server for the OAuth interop
// check (oauth.mjs), on node:http and node:crypto only: RFC 8414 and OpenID
// metadata, a JWKS, /authorize (auto-approved: a 302 back with code, state
// and iss, RFC 9207), /token (client_credentials with client_secret_basic or
// _post; authorization_code with PKCE S256), and /register (RFC 7591).
//
// It signs RFC 9068 access tokens (typ at+jwt) with its own node:crypto
// signer, independent of baremcp's Go verifier: RS256 by default, or PS256,
// ES256, EdDSA. Every token request must carry an RFC 8707 `resource`
// (refused with invalid_target otherwise), which becomes the token's `aud`,
// so a passing run proves the clients send it. It records every token it
// issues, for the scenarios to assert on. Loopback only; nothing persists.

import crypto from 'node:crypto';
import http from 'node:http';

/** The clients it knows beforehand; /register adds public ones. */
const CLIENTS = {
    'cc-client': { secret: 'cc-secret', grant: 'client_credentials' },
    'public-client': { redirects: ['http://localhost:3000/callback'], grant: 'authorization_code' }
};

/** The scopes any client may be granted. */
export const AS_SCOPES = ['mcp:tools', 'demo:admin'];

const b64url = buf => Buffer.from(buf).toString('base64url');

function keyPair(alg) {
    switch (alg) {
        case 'RS256':
        case 'PS256':
            return crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
        case 'ES256':
            return crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
        case 'EdDSA':
            return crypto.generateKeyPairSync('ed25519');
        default:
            throw new Error(`testas: unknown algorithm ${alg}`);
    }
}

function sign(alg, key, input) {
    switch (alg) {
        case 'RS256':
            return crypto.sign('sha256', input, key);
        case 'PS256':
            return crypto.sign('sha256', input, { key, padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: crypto.constants.RSA_PSS_SALTLEN_DIGEST });
        case 'ES256':
            return crypto.sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
        case 'EdDSA':
            return crypto.sign(null, input, key);
    }
    throw new Error(`testas: unknown algorithm ${alg}`);
}

/** Starts the server on a free loopback port; resolves to its handle. */
export async function startTestAS({ alg = 'RS256', ttlSeconds = 600 } = {}) {
    const { privateKey, publicKey } = keyPair(alg);
    const kid = `k-${crypto.randomBytes(4).toString('hex')}`;
    const jwk = { ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg };
    const clients = new Map(Object.entries(CLIENTS));
    const codes = new Map();
    const issued = [];
    let issuer = '';

    const json = (res, status, body, headers = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
        res.end(JSON.stringify(body));
    };
    const oauthError = (res, status, error, description) => json(res, status, { error, error_description: description });

    const metadata = () => ({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: AS_SCOPES,
        authorization_response_iss_parameter_supported: true
    });

    const mint = (sub, clientId, resource, scope) => {
        const now = Math.floor(Date.now() / 1000);
        const header = { alg, kid, typ: 'at+jwt' };
        const claims = { iss: issuer, sub, aud: resource, client_id: clientId, iat: now, exp: now + ttlSeconds, jti: crypto.randomUUID(), scope };
        const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
        return `${input}.${b64url(sign(alg, privateKey, Buffer.from(input)))}`;
    };

    /** Requested scopes the client may have, in order; none requested: none. */
    const grant = requested => [...new Set((requested ?? '').split(' ').filter(s => AS_SCOPES.includes(s)))].join(' ');

    /** client_secret_basic, client_secret_post, or a public client by id. */
    const authenticateClient = (req, form) => {
        let id = form.get('client_id');
        let secret = form.get('client_secret');
        const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
        if (basic) {
            const decoded = Buffer.from(basic[1], 'base64').toString();
            const i = decoded.indexOf(':');
            id = decodeURIComponent(decoded.slice(0, i));
            secret = decodeURIComponent(decoded.slice(i + 1));
        }
        const c = clients.get(id);
        if (!c) return [id, undefined];
        if (c.secret === undefined) return [id, secret ? undefined : c];
        const a = Buffer.from(secret ?? ''), b = Buffer.from(c.secret);
        return [id, a.length === b.length && crypto.timingSafeEqual(a, b) ? c : undefined];
    };

    const readBody = req => new Promise((resolve, reject) => {
        let size = 0;
        const chunks = [];
        req.on('data', c => {
            size += c.length;
            if (size > 64 << 10) reject(new Error('body too large'));
            else chunks.push(c);
        });
        req.on('end', () => resolve(Buffer.concat(chunks).toString()));
        req.on('error', reject);
    });

    const server = http.createServer(async (req, res) => {
        try {
            const url = new URL(req.url, issuer);
            if (req.method === 'GET' && (url.pathname === '/.well-known/oauth-authorization-server' || url.pathname === '/.well-known/openid-configuration')) {
                return json(res, 200, metadata());
            }
            if (req.method === 'GET' && url.pathname === '/jwks') {
                return json(res, 200, { keys: [jwk] }, { 'Cache-Control': 'max-age=300' });
            }
            if (req.method === 'GET' && url.pathname === '/authorize') {
                const q = url.searchParams;
                const c = clients.get(q.get('client_id'));
                const redirect = q.get('redirect_uri');
                if (!c || !c.redirects?.includes(redirect)) {
                    // Never redirect to a URI not registered for the client.
                    return oauthError(res, 400, 'invalid_request', 'unknown client or redirect_uri');
                }
                const back = params => {
                    params.set('iss', issuer);
                    if (q.get('state')) params.set('state', q.get('state'));
                    res.writeHead(302, { Location: `${redirect}?${params}` });
                    res.end();
                };
                if (q.get('response_type') !== 'code' || !q.get('code_challenge') || q.get('code_challenge_method') !== 'S256') {
                    return back(new URLSearchParams({ error: 'invalid_request', error_description: 'PKCE with S256 is required' }));
                }
                if (!q.get('resource')) {
                    return back(new URLSearchParams({ error: 'invalid_target', error_description: 'resource (RFC 8707) is required' }));
                }
                const code = crypto.randomBytes(16).toString('hex');
                codes.set(code, { client: q.get('client_id'), redirect, challenge: q.get('code_challenge'), resource: q.get('resource'), scope: q.get('scope') ?? '', expires: Date.now() + 60_000 });
                return back(new URLSearchParams({ code }));
            }
            if (req.method === 'POST' && url.pathname === '/token') {
                const form = new URLSearchParams(await readBody(req));
                const [id, c] = authenticateClient(req, form);
                if (!c) return oauthError(res, 401, 'invalid_client', 'client authentication failed');
                let resource = form.get('resource');
                let sub, scope;
                switch (form.get('grant_type')) {
                    case 'client_credentials':
                        if (c.grant !== 'client_credentials') return oauthError(res, 400, 'unauthorized_client', 'grant not allowed');
                        sub = id;
                        scope = grant(form.get('scope'));
                        break;
                    case 'authorization_code': {
                        const g = codes.get(form.get('code'));
                        codes.delete(form.get('code'));
                        const verifier = crypto.createHash('sha256').update(form.get('code_verifier') ?? '').digest('base64url');
                        if (!g || g.expires < Date.now() || g.client !== id) return oauthError(res, 400, 'invalid_grant', 'unknown or used code');
                        if (g.redirect !== form.get('redirect_uri')) return oauthError(res, 400, 'invalid_grant', 'redirect_uri differs');
                        if (verifier !== g.challenge) return oauthError(res, 400, 'invalid_grant', 'PKCE verification failed');
                        if (resource && resource !== g.resource) return oauthError(res, 400, 'invalid_target', 'resource differs from the authorization request');
                        resource = resource || g.resource;
                        sub = 'alice';
                        scope = grant(g.scope);
                        break;
                    }
                    default:
                        return oauthError(res, 400, 'unsupported_grant_type', String(form.get('grant_type')));
                }
                if (!resource) return oauthError(res, 400, 'invalid_target', 'resource (RFC 8707) is required');
                issued.push({ grant: form.get('grant_type'), client: id, sub, resource, scope });
                return json(res, 200, { access_token: mint(sub, id, resource, scope), token_type: 'Bearer', expires_in: ttlSeconds, scope });
            }
            if (req.method === 'POST' && url.pathname === '/register') {
                const md = JSON.parse(await readBody(req));
                if (!Array.isArray(md.redirect_uris) || md.redirect_uris.length === 0) {
                    return oauthError(res, 400, 'invalid_client_metadata', 'redirect_uris is required');
                }
                const id = `dyn-${crypto.randomBytes(6).toString('hex')}`;
                clients.set(id, { redirects: md.redirect_uris, grant: 'authorization_code' });
                return json(res, 201, {
                    client_id: id, client_id_issued_at: Math.floor(Date.now() / 1000), redirect_uris: md.redirect_uris,
                    token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], response_types: ['code'],
                    client_name: md.client_name
                });
            }
            oauthError(res, 404, 'not_found', req.url);
        } catch (e) {
            oauthError(res, 500, 'server_error', String(e?.message ?? e));
        }
    });
    await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${server.address().port}`;
    return {
        issuer,
        alg,
        issued,
        close: () => new Promise(resolve => { server.closeAllConnections(); server.close(() => resolve()); })
    };
}
