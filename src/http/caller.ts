import type * as Hapi from '@hapi/hapi';

import type { UserProfile } from '../auth/users';


// The signed-in user of a request: every route but the login and health ones runs behind the auth scheme, which
// sets it.
export const userOf = (request: Hapi.Request): UserProfile => request.auth.credentials.user as UserProfile;
