import * as Yaml from 'yaml';


// Where in its file a problem is: the line and column of the node its path names, read from the parsed
// document's ranges. A path that goes further than the file (a required key left out) points at the deepest
// node it reaches, the mapping the key is missing from.

export interface Position {
    readonly line: number;
    readonly column: number;
}

interface Found {
    readonly node: Yaml.Node | null;
    readonly key: Yaml.Node | null;
}

const child = (node: unknown, segment: string): Found | undefined => {

    // The keys of a structure file are plain scalars; a path's number is an item of a list.
    if (Yaml.isMap(node)) {
        const pair = node.items.find((item) => String((item.key as Yaml.Scalar).value) === segment);
        return pair ? { node: pair.value as Yaml.Node | null, key: pair.key as Yaml.Node } : undefined;
    }

    return Yaml.isSeq(node) ? { node: node.items[Number(segment)] as Yaml.Node, key: null } : undefined;
};

// `onKey`: point at the key rather than its value (a key that is not allowed). `within`: the 1-based column of
// the problem in a one-line string value (a where's parser names one), counted from its first character.
export const positionOf = (document: Yaml.Document, lines: Yaml.LineCounter, path: readonly string[], onKey = false, within?: number): Position | undefined => {

    let found: Found = { node: document.contents as Yaml.Node | null, key: null };
    let reached = true;
    for (const segment of path) {
        const next = child(found.node, segment);
        if (!next) {
            reached = false;
            break;
        }

        found = next;
    }

    const target = (onKey || !found.node) && found.key ? found.key : found.node ?? found.key;
    if (!target?.range) {
        return undefined;
    }

    // Into the value only where its text is the source's, on one line: a plain or quoted scalar (a block scalar
    // or one folded over lines points at its start).
    let offset = target.range[0];
    const inline = Yaml.isScalar(target) && ['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'].includes(target.type!) && lines.linePos(target.range[0]).line === lines.linePos(target.range[1]).line;
    if (reached && within !== undefined && inline) {
        offset += (target.type === 'PLAIN' ? 0 : 1) + within - 1;
    }

    const { line, col } = lines.linePos(offset);
    return { line, column: col };
};
