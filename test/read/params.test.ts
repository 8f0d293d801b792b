import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parameterNames, withoutMissingParams } from '../../src/read/parse/params';
import { parseWhere } from '../../src/read/parse/where';


const { experiment, test } = exports.lab = Lab.script();
const { expect } = Code;

experiment('a where without the parameters a partial record lacks', () => {

    const pruned = (where: string, params: Record<string, unknown>) => {

        const left = withoutMissingParams(parseWhere(where), params);
        return left && JSON.stringify(left, (key, value: unknown) => (key === 'position' ? undefined : value));
    };

    const same = (where: string) => JSON.stringify(parseWhere(where), (key, value: unknown) => (key === 'position' ? undefined : value));

    test('drops the terms whose parameter has no value, and keeps the others', () => {

        const cases: [string, Record<string, unknown>, string | undefined][] = [
            ['siteid=:siteid', { siteid: 'BEDFORD' }, same('siteid=:siteid')],
            ['siteid=:siteid', { siteid: null }, same('siteid=:siteid')],
            ['siteid=:siteid', {}, undefined],
            ['siteid=:siteid and status!="X"', {}, same('status!="X"')],
            ['siteid=:siteid and location=:location', {}, undefined],
            ['siteid in [:a, "B"]', { a: 'A' }, same('siteid in [:a, "B"]')],
            ['siteid in [:a, "B"]', {}, undefined],
            ['siteid=:siteid or status="X"', {}, undefined],
            ['siteid=:siteid or status="X"', { siteid: 'A' }, same('siteid=:siteid or status="X"')],
            ['not (siteid=:siteid)', {}, undefined],
            ['not (siteid=:siteid)', { siteid: 'A' }, same('not (siteid=:siteid)')],
            ['description="%x%"', {}, same('description="%x%"')],
            ['woactivity{taskid=:t}', {}, same('woactivity{taskid=:t}')]
        ];
        for (const [where, params, expected] of cases) {
            expect(pruned(where, params), `${where} ${JSON.stringify(params)}`).to.equal(expected);
        }
    });
});

experiment('the parameters a where reads', () => {

    test('each once, in order, wherever they stand', () => {

        expect(parameterNames(parseWhere('siteid=:site and (status in [:a, "X", :b] or not (wonum=:site)) and woactivity{taskid>:task} and description="%x%" and location="*"'))).to.equal(['site', 'a', 'b', 'task']);
        expect(parameterNames(parseWhere('status="APPR"'))).to.equal([]);
    });
});
