import type * as Hapi from '@hapi/hapi';

import { maximoError } from '../errors/maximo-error';
import { header } from './headers';


// A browser opening an API address without a login gets a 401 whose body is a login page: a plain HTML form
// posting to {contextRoot}/j_security_check with the address it asked for, to which the form login then sends it
// back (303) with its session cookie. Its 401 challenges with `Form realm="Osprey"`, a scheme browsers do not know,
// so they show the page rather than their Basic dialog. API clients never ask for HTML, so they keep Maximo's JSON
// error and the Basic challenge. The page has no script: its policy lets it post its form to this origin
// and style itself, nothing else.

export const loginPagePolicy = 'default-src \'none\'; style-src \'unsafe-inline\'; form-action \'self\'; frame-ancestors \'none\'; base-uri \'none\'';

/** Whether the request is a browser's asking for a page (its Accept names text/html), not an API client's. */
export const wantsHtml = (request: Hapi.Request): boolean => /(^|,)\s*text\/html\s*(;|,|$)/i.test(header(request, 'accept') ?? '');

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Where a form login may send the browser back: a path of this server under its context root, as a browser would
// resolve it (no other origin through `//host` or a backslash, no `..` out of the root), without control or
// line-separator characters; the Location is the resolved path and query, percent-encoded as URLs are.
const base = 'http://osprey.invalid';

export const returnPath = (contextRoot: string, value: string): string => {

    const root = `/${contextRoot}`;
    const refused = () => maximoError('badRequest', `j_redirect names where a form login sends the browser back: a path of this server under ${root}/, not ${JSON.stringify(value.slice(0, 200))}.`);
    if (!value.startsWith('/') || /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) {
        throw refused();
    }

    let url: URL;
    try {
        url = new URL(value, base);
    }
    catch {
        throw refused();
    }

    if (url.origin !== base || !(url.pathname === root || url.pathname.startsWith(`${root}/`))) {
        throw refused();
    }

    return url.pathname + url.search;
};

export const loginPage = (contextRoot: string, target: string, failed: string | undefined): string => {

    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in · Osprey</title>
<style>
body { font: 16px/1.4 system-ui, sans-serif; background: #f4f5f7; margin: 0; }
main { max-width: 22rem; margin: 12vh auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
h1 { font-size: 1.3rem; margin: 0 0 1rem; }
label { display: block; margin: .8rem 0 .2rem; }
input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
button { margin-top: 1.2rem; width: 100%; padding: .6rem; font: inherit; background: #0f62fe; color: #fff; border: 0; border-radius: 4px; }
p.failed { color: #a2191f; }
p.to { color: #555; font-size: .85rem; word-break: break-all; }
</style>
</head>
<body>
<main>
<h1>Log in to Osprey</h1>
${failed ? `<p class="failed" role="alert">${escapeHtml(failed)}</p>\n` : ''}<form method="post" action="/${escapeHtml(contextRoot)}/j_security_check">
<input type="hidden" name="j_redirect" value="${escapeHtml(target)}">
<label for="u">User</label>
<input id="u" name="j_username" autocomplete="username" required autofocus>
<label for="p">Password</label>
<input id="p" name="j_password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p class="to">Then on to ${escapeHtml(target)}</p>
</main>
</body>
</html>
`;
};
