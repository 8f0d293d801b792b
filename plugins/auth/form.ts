import type * as Hapi from '@hapi/hapi';

import { maximoError, returnPath } from '../../src';


// The fields of a form login (`j_username`, `j_password`), as IBM's Java client (FORM mode) and the npm client
// (LDAP_FORM mode) post them: application/x-www-form-urlencoded. The Java client does not encode the values,
// so a password holding `&` or `+` cannot reach any server intact that way; that is the client's limit.
// A browser's form (the login page, src/http/login-page.ts) also sends j_redirect, where to go once logged in.
export const formCredentials = (request: Hapi.Request): { userid: string; password: string; redirect?: string } => {

    // Another site's form would log the browser in as the attacker's user (login CSRF): refused before the handler,
    // as every POST from another site's page is (src/http/cross-site.ts).
    const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
        throw maximoError('unsupportedMedia', `A form login is sent as application/x-www-form-urlencoded with j_username and j_password, not as ${type || 'a body without a content type'}.`);
    }

    const fields = new URLSearchParams(Buffer.isBuffer(request.payload) ? request.payload.toString('utf8') : '');
    const [userid, ...moreUserids] = fields.getAll('j_username');
    const [password, ...morePasswords] = fields.getAll('j_password');
    const [redirect, ...moreRedirects] = fields.getAll('j_redirect');
    if (moreRedirects.length) {
        throw maximoError('badRequest', `A form login sends j_redirect once, not ${1 + moreRedirects.length} times.`);
    }

    const back = redirect === undefined ? undefined : returnPath(request.server.app.osprey.options.contextRoot, redirect);
    request.app.loginReturn = back;

    if (!userid || password === undefined) {
        throw maximoError('badRequest', 'A form login needs the fields j_username and j_password.');
    }

    // Only one of them would be read: which is no client's to guess.
    if (moreUserids.length || morePasswords.length) {
        throw maximoError('badRequest', `A form login sends j_username and j_password once each, not ${moreUserids.length ? 'j_username' : 'j_password'} ${1 + (moreUserids.length || morePasswords.length)} times.`);
    }

    // Other credentials beside the form (the npm client's LDAP_FORM login sends its Basic header too) are judged
    // where the scheme judges them, by loginsOf(…).formLogin: the same login is one, another is a 400.
    return { userid, password, ...back !== undefined ? { redirect: back } : {} };
};
