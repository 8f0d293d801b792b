import type { Registry } from '../structures/registry';


// Query parameters that carry credentials (src/auth/credentials.ts).
const credentialParameters = ['apikey', '_lid', '_lpwd'];

const decoded = (text: string): string => {

    try {
        return decodeURIComponent(text.replace(/\+/g, ' '));
    }
    catch {
        return text;
    }
};

const escaped = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// A request's query as its log line shows it: the value of a credential parameter, of a parameter named as a
// secret attribute of any structure, and of any parameter whose value names one (an oslc.where or a select that
// mentions an API key) is written `[redacted]`. A query that names none of them, even percent-encoded, is kept as
// it came without being split (the log line is on every request's path).
export const queryRedactor = (registry: Registry): ((query: string) => string) => {

    const secretAttributes = registry.objects().flatMap((object) => [...object.attributes.values()].filter((attribute) => attribute.secret).map((attribute) => attribute.name.toLowerCase()));
    const mentions = new RegExp([...new Set([...credentialParameters, ...secretAttributes])].map(escaped).join('|'), 'i');
    const suspect = new RegExp(`%|${mentions.source}`, 'i');

    return (query) => {

        if (!suspect.test(query)) {
            return query;
        }

        return query.split('&').map((part) => {

            // A parameter without a value is its name alone, and a secret's name is no secret.
            const eq = part.indexOf('=');
            return eq >= 0 && mentions.test(decoded(part)) ? `${part.slice(0, eq)}=[redacted]` : part;
        }).join('&');
    };
};
