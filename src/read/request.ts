// What a read asks, as the resources plugin reads it from the query string (plugins/resources/request.ts): the
// text of each parameter, not yet parsed — parsing is the first stage of the pipeline (./parse), where a bad
// value becomes a 400 that names its parameter. A repeated parameter counts by its last value.
export interface ReadQuery {
    /** oslc.select, else oslc.properties, and which of the two it was (errors name it). */
    readonly select?: { readonly text: string; readonly parameter: 'oslc.select' | 'oslc.properties' };
    readonly where?: string;
    readonly orderBy?: string;
    /** opmodeor=1 / opmode=and|or, unchecked: the filter stage refuses a value that is neither. */
    readonly opmodeor: boolean;
    readonly opmode?: string;
    readonly searchTerms?: string;
    readonly searchAttributes?: string;
    /** savedQuery (or savedquery); its parameters are the `sqp:NAME` entries of `parameters`. */
    readonly savedQuery?: string;
    readonly tlrange?: string;
    readonly tlattribute?: string;
    /** oslc.pageSize (checked as a positive integer by the route); undefined: the structure's default. */
    readonly pageSize?: number;
    readonly pageno: number;
    readonly stablePaging: boolean;
    readonly stableId?: string;
    /** count=1: the total only; collectioncount=1: the total with the page. */
    readonly count: boolean;
    readonly collectionCount: boolean;
    readonly addSchema: boolean;
    readonly distinct?: string;
    readonly gbcols?: string;
    readonly gbrange?: string;
    readonly gbfilter?: string;
    readonly gbsortby?: string;
    /** action=listreports|genreport on a collection, with reportname, reportformat, attachment. */
    readonly action?: string;
    readonly reportName?: string;
    readonly reportFormat?: string;
    /** genreport's attachment=1: each record of the report lists its attached documents. */
    readonly attachment: boolean;
    /** A lookup's setupdata (the unsaved record it lists values for). */
    readonly setupData?: string;
    /** Every query parameter by name (last value): a report's and a saved query's (`sqp:`) parameters are read
     * by the names their YAML declares. */
    readonly parameters: Readonly<Record<string, string>>;
}
