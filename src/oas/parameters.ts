import { queryParameters, requestHeaders, useLabels, uses, type Known, type Use } from '../http/parameters';


// The query parameters and headers of the parameter table (src/http/parameters.ts) as OpenAPI parameters, each
// once under components.parameters and referenced by the operations whose uses carry it out. Credentials are the
// security schemes' (maxauth, Authorization, apikey, the session cookie; _lid and _lpwd are described there), and
// sqp:NAME is a family of names, described with savedQuery.

const credentials = new Set(['apikey', '_lid', '_lpwd', 'maxauth', 'authorization', 'cookie', 'sqp:']);

const described = (known: Known): string => {

    const sent = [known.sentBy.npm && `npm client: ${known.sentBy.npm}`, known.sentBy.java && `Java client: ${known.sentBy.java}`].filter(Boolean).join('; ');
    const where = known.supported.length === uses.length ? 'every route' : known.supported.map((use) => useLabels[use]).join('; ');
    return `${known.meaning[0]!.toUpperCase()}${known.meaning.slice(1)}.${known.name === 'savedQuery' ? ' Its parameters are sent as sqp:NAME.' : ''} Carried out on ${where}.${sent ? ` Sent by the ${sent}.` : ''}`;
};

const listed = (list: readonly Known[]) => list.filter((known) => known.supported.length && !credentials.has(known.name));

const queries = listed(queryParameters);
const headers = listed(requestHeaders);

export const parameterName = (place: 'query' | 'header', name: string): string => `${place === 'query' ? 'q' : 'h'}.${name}`;

const component = (place: 'query' | 'header') => {

    return (known: Known) => [parameterName(place, known.name), { name: known.name, in: place, description: described(known), schema: { type: 'string' } }];
};

export const parameterComponents = (): Record<string, unknown> => Object.fromEntries([...queries.map(component('query')), ...headers.map(component('header'))]);

// The parameters an operation of these uses takes, as references.
export const parametersOf = (uses: readonly Use[], without: readonly string[] = []): Record<string, string>[] => {

    const carried = (known: Known) => known.supported.some((use) => uses.includes(use)) && !without.includes(known.name);
    return [
        ...queries.filter(carried).map((known) => ({ $ref: `#/components/parameters/${parameterName('query', known.name)}` })),
        ...headers.filter(carried).map((known) => ({ $ref: `#/components/parameters/${parameterName('header', known.name)}` }))
    ];
};
