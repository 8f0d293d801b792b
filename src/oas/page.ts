import * as Fs from 'node:fs';
import * as Path from 'node:path';


// The page that browses the API (Maximo's {contextRoot}/oas3/api.html): Swagger UI from the swagger-ui-dist
// package, served by this server (no CDN), and a few lines of ours that log in with the form login and point
// Swagger UI at {contextRoot}/oslc/oas. Ours are here as text, so that the compiled server needs no other files.
//
// Content security policy of the page and its files, relaxed from the API's (src/http/security-headers.ts) only
// as far as Swagger UI needs: its scripts and styles from this server ('self'; nothing inline, neither script nor
// style), its data: images (the SVG icons of its style sheet), and requests to this server only (connect-src
// 'self': "Try it out" reaches no other site). Frames, objects, forms posting elsewhere and <base> stay refused.
// The browser test (test/e2e/oas-page.test.ts) fails on any violation the page reports.
export const pageContentSecurityPolicy = 'default-src \'none\'; script-src \'self\'; style-src \'self\'; img-src \'self\' data:; connect-src \'self\'; frame-ancestors \'none\'; base-uri \'none\'; form-action \'none\'';

const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Osprey API</title>
<link rel="stylesheet" href="swagger-ui.css">
<link rel="stylesheet" href="api.css">
<link rel="icon" type="image/png" href="favicon-32x32.png">
</head>
<body>
<form id="login" hidden>
<h2>Log in to browse the API</h2>
<label>User <input name="j_username" autocomplete="username" required></label>
<label>Password <input name="j_password" type="password" autocomplete="current-password" required></label>
<button type="submit">Log in</button>
<p id="problem" role="alert"></p>
</form>
<div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="api.js"></script>
</body>
</html>
`;

// The document answers 401 until the browser has a session; the form logs in (j_security_check answers the
// session cookie, HttpOnly), and every request of Swagger UI, "Try it out" included, then carries the cookie.
const script = `'use strict';
(function () {
    var home = new URL('../oslc/', location.href);
    var documentUrl = new URL('oas', home).href;
    var form = document.getElementById('login');
    var problem = document.getElementById('problem');
    var show = function () {
        form.hidden = true;
        window.ui = SwaggerUIBundle({ url: documentUrl, dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'none', filter: true, validatorUrl: null });
    };
    var login = function () {
        form.hidden = false;
        form.addEventListener('submit', function (event) {
            event.preventDefault();
            problem.textContent = '';
            fetch(new URL('../j_security_check', location.href), { method: 'POST', credentials: 'same-origin', body: new URLSearchParams(new FormData(form)) })
                .then(function (res) { return res.ok ? show() : res.json().then(function (body) { problem.textContent = body.Error ? body.Error.message : 'The login failed.'; }); })
                .catch(function (error) { problem.textContent = String(error); });
        });
    };
    fetch(documentUrl, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then(function (res) { return res.status === 401 ? login() : show(); })
        .catch(function (error) { problem.textContent = String(error); form.hidden = false; });
}());
`;

const css = `#login { max-width: 460px; margin: 40px auto; font-family: sans-serif; display: grid; gap: 10px; }
#login[hidden] { display: none; }
#login label { display: grid; gap: 4px; }
#problem { color: #b00020; }
`;

interface PageFile {
    readonly type: string;
    readonly body: Buffer;
}

const dist = Path.dirname(require.resolve('swagger-ui-dist/package.json'));
const fromDist: Readonly<Record<string, string>> = {
    'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
    'swagger-ui.css': 'text/css; charset=utf-8',
    'favicon-32x32.png': 'image/png',
    'favicon-16x16.png': 'image/png'
};

const ours: Readonly<Record<string, PageFile>> = {
    'api.html': { type: 'text/html; charset=utf-8', body: Buffer.from(html) },
    'api.js': { type: 'application/javascript; charset=utf-8', body: Buffer.from(script) },
    'api.css': { type: 'text/css; charset=utf-8', body: Buffer.from(css) }
};

export const pageFileNames = [...Object.keys(ours), ...Object.keys(fromDist)];

const kept = new Map<string, PageFile>();

// A file of the page by name, read from swagger-ui-dist once; undefined for a name that is none of them.
export const pageFile = (name: string): PageFile | undefined => {

    if (Object.hasOwn(ours, name)) {
        return ours[name];
    }

    if (!Object.hasOwn(fromDist, name)) {
        return undefined;
    }

    let file = kept.get(name);
    if (!file) {
        file = { type: fromDist[name]!, body: Fs.readFileSync(Path.join(dist, name)) };
        kept.set(name, file);
    }

    return file;
};
