// A name from a request looked up in a YAML map: only the map's own keys count, never Object.prototype's
// (a saved query named "valueOf" must be unknown, not a function).
export const own = <T>(map: Readonly<Record<string, T>>, name: string): T | undefined => (Object.hasOwn(map, name) ? map[name] : undefined);
