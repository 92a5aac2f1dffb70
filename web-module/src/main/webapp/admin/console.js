/*
 * The operator's console: one page under /admin/ (role mail-admin; the browser's HTTP Basic login covers the
 * API calls), with its views in the URL's fragment so that every view can be shared and the back button works:
 *   #/                          overview: counts, oldest queued mail, failure reasons, charts, newest mails
 *   #/mails?status=FAILED&...   search (the API's filter as it is, plus page, size, sort) and bulk actions
 *   #/mails/123                 one mail: envelope, recipients, attempts, events, attachments, bodies, actions
 *   #/suppressions?address=...  the suppression list
 *   #/templates                 the stored templates: their locales and sources, and a preview
 *   #/dkim                      the DKIM keys and the DNS records to publish
 *   #/dispatch                  pause and resume: the whole queue, per account, per campaign
 * Text from mails goes in with textContent, never as HTML; a mail's HTML body is shown in an iframe with an
 * empty sandbox (no scripts, opaque origin) through srcdoc. Charts are SVG drawn here. State-changing requests
 * are same-origin fetches (the browser sends Sec-Fetch-Site and Origin, which RequestGuard checks) with a JSON
 * body or none.
 */
'use strict';

const REFRESH_MS = 5000;
const DETAIL_REFRESH_MS = 1000;
const STATUSES = ['QUEUED', 'SENDING', 'SENT', 'FAILED', 'CANCELLED', 'EXPIRED', 'HELD', 'SUPPRESSED'];
const REQUEUEABLE = ['FAILED', 'EXPIRED', 'HELD', 'CANCELLED'];
const CANCELLABLE = ['QUEUED', 'HELD'];
const UNSETTLED = ['QUEUED', 'SENDING'];
/** The search's text criteria, as the API names them (the form's input names are the same). */
const TEXT_CRITERIA = ['recipient', 'sender', 'subject', 'account', 'enqueuedBy', 'errorText', 'campaign', 'tag',
    'reference', 'createdFrom', 'createdTo', 'bounced'];
const SVG = 'http://www.w3.org/2000/svg';

// ---------------------------------------------------------------------------------------------- the API

/** An answer other than 2xx, with the problem's title and detail (RFC 9457) when it has them. */
class ApiError extends Error {
    constructor(status, problem) {
        const text = problem && [problem.title, problem.detail].filter(Boolean).join(': ');
        super(status === 403 ? 'not allowed' + (text ? ' (' + text + ')' : '')
            : (text || 'HTTP ' + status) + fieldErrors(problem));
        this.status = status;
    }
}

function fieldErrors(problem) {
    const errors = problem && (problem.errors || problem.violations);
    if (!Array.isArray(errors) || errors.length === 0) {
        return '';
    }
    return ' (' + errors.map(e => [e.field || e.name, e.message].filter(Boolean).join(' ')).join('; ') + ')';
}

async function api(path, method, body) {
    const options = {method: method || 'GET', credentials: 'same-origin', headers: {'Accept': 'application/json'}};
    if (body !== undefined) {
        options.headers['Content-Type'] = 'application/json';
        options.body = JSON.stringify(body);
    }
    const response = await fetch('../api/' + path, options);
    const type = response.headers.get('Content-Type') || '';
    const answer = response.status !== 204 && type.includes('json') ? await response.json() : null;
    if (!response.ok) {
        throw new ApiError(response.status, answer);
    }
    return answer;
}

/** The answer, or null when the server has no such endpoint yet (404, or 405 where the path has other methods). */
async function optional(path) {
    try {
        return await api(path);
    } catch (e) {
        if (e.status === 404 || e.status === 405) {
            return null;
        }
        throw e;
    }
}

// ---------------------------------------------------------------------------------------------- the page

function el(tag, attributes, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
        if (value !== null && value !== undefined && value !== false) {
            element.setAttribute(name, value === true ? '' : String(value));
        }
    }
    for (const child of children) {
        if (child !== null && child !== undefined) {
            element.append(child instanceof Node ? child : String(child));
        }
    }
    return element;
}

function row(...cells) {
    return el('tr', {}, ...cells.map(c => c instanceof Node && c.tagName === 'TD' ? c : el('td', {}, c)));
}

function fill(selector, rows, empty) {
    const body = document.querySelector(selector + ' tbody');
    const columns = document.querySelectorAll(selector + ' thead th').length;
    body.replaceChildren(...(rows.length || !empty ? rows : [el('tr', {}, el('td', {colspan: columns}, empty))]));
}

function time(iso) {
    return iso ? iso.substring(0, 19).replace('T', ' ') : '';
}

function age(seconds) {
    if (seconds === null || seconds === undefined) {
        return 'none';
    }
    if (seconds < 120) {
        return Math.round(seconds) + ' s';
    }
    if (seconds < 7200) {
        return Math.round(seconds / 60) + ' min';
    }
    if (seconds < 172800) {
        return Math.round(seconds / 3600) + ' h';
    }
    return Math.round(seconds / 86400) + ' days';
}

function between(from, to) {
    if (!from || !to) {
        return '';
    }
    return ' (' + age((Date.parse(to) - Date.parse(from)) / 1000) + ' later)';
}

function statusCell(status) {
    return el('td', {class: 'status status-' + status}, status);
}

function mailLink(mail) {
    return el('a', {href: '#/mails/' + mail.id, class: 'mail-link'}, String(mail.id));
}

function say(message) {
    const notice = document.getElementById('notice');
    notice.textContent = message || '';
    notice.hidden = !message;
}

function fail(message) {
    const error = document.getElementById('error');
    error.textContent = message || '';
    error.hidden = !message;
}

/** Runs an operator's action: its outcome or its error in the page, the button off meanwhile. */
async function act(button, what, work) {
    if (button) {
        button.disabled = true;
    }
    try {
        const message = await work();
        fail(null);
        say(message || what + ': done.');
    } catch (e) {
        say(null);
        fail(what + ': ' + e.message);
    } finally {
        if (button) {
            button.disabled = false;
        }
    }
}

// ---------------------------------------------------------------------------------------------- routing

let shown = null;
let timer = null;
/** Counts the views shown: an answer that arrives after the operator moved on is dropped. */
let generation = 0;

function route() {
    const hash = location.hash.replace(/^#/, '') || '/';
    const [path, query] = hash.split('?');
    return {path, params: new URLSearchParams(query || '')};
}

/** Shows the view named by the URL; go() and the back button both end here. */
function render() {
    if (shown === location.hash) {
        return;
    }
    shown = location.hash;
    generation++;
    clearTimeout(timer);
    say(null);
    fail(null);
    const {path, params} = route();
    const detail = path.match(/^\/mails\/(\d+)$/);
    const page = detail ? 'mail' : path === '/mails' ? 'mails' : path === '/suppressions' ? 'suppressions'
        : path === '/dispatch' ? 'dispatch' : path === '/dkim' ? 'dkim' : path === '/templates' ? 'templates' : 'overview';
    document.querySelectorAll('.page').forEach(p => p.hidden = p.id !== 'page-' + page);
    document.querySelectorAll('nav a[data-page]').forEach(a => {
        const current = a.dataset.page === page || (page === 'mail' && a.dataset.page === 'mails');
        if (current) {
            a.setAttribute('aria-current', 'page');
        } else {
            a.removeAttribute('aria-current');
        }
    });
    if (document.body.dataset.page && document.body.dataset.page !== page) {
        // a keyboard or screen reader user lands on the new view's heading, not on a link that is gone
        const heading = document.querySelector('#page-' + page + ' h2');
        heading.tabIndex = -1;
        heading.focus({preventScroll: true});
    }
    document.body.dataset.page = page;
    document.body.dataset.loaded = 'false';
    ({
        overview: () => showOverview(),
        mails: () => showSearch(params),
        mail: () => showMail(Number(detail && detail[1])),
        suppressions: () => showSuppressions(params),
        dispatch: () => showDispatch(),
        dkim: () => showDkim(),
        templates: () => showTemplates()
    })[page]();
}

/** A new history entry for the view (unless it is the current one), then the view, read afresh. */
function go(hash) {
    if (location.hash !== hash) {
        history.pushState(null, '', hash);
    }
    shown = null;
    render();
}

/** Shows the view again after a while, unless the operator went to another one meanwhile. */
function again(page, show, millis) {
    if (document.body.dataset.page === page) {
        clearTimeout(timer);
        timer = setTimeout(show, millis);
    }
}

function loaded() {
    document.body.dataset.loaded = 'true';
}

// ---------------------------------------------------------------------------------------------- overview

let statistics = null;
let statisticsRead = null; // the last read of admin/statistics: {at: ms, promise}

/**
 * The statistics, read again unless a read began less than maxAgeMs ago (the overview and the banner both
 * show them every REFRESH_MS: one read serves both).
 */
function readStatistics(maxAgeMs) {
    const now = Date.now();
    if (!statisticsRead || now - statisticsRead.at >= maxAgeMs) {
        const promise = api('admin/statistics');
        statisticsRead = {at: now, promise};
        promise.catch(() => {
            if (statisticsRead && statisticsRead.promise === promise) {
                statisticsRead = null; // a failed read is not kept
            }
        });
    }
    return statisticsRead.promise;
}

async function showOverview() {
    const mine = generation;
    try {
        const [stats, newest] = await Promise.all([readStatistics(0), api('admin/mails?size=25&sort=id,desc')]);
        if (mine !== generation) {
            return;
        }
        statistics = stats;
        document.getElementById('generated-at').textContent = time(stats.generatedAt);
        document.getElementById('depth').replaceChildren(
            ...Object.entries(stats.countsByStatus).map(([status, count]) => el('li', {class: 'tile status-' + status},
                el('span', {class: 'label'}, status),
                // Mail out of the queue newest finished first: the order the log's status index serves at any size
                el('a', {href: '#/mails?status=' + status + (UNSETTLED.includes(status) ? '' : '&sort=finishedAt,desc'),
                    id: 'count-' + status, class: 'count'}, String(count)))),
            el('li', {class: 'tile'}, el('span', {class: 'label'}, 'oldest queued'),
                el('span', {class: 'count', id: 'oldest-queued'}, age(stats.oldestQueuedSeconds))));
        document.getElementById('paused-campaigns').textContent = stats.pausedCampaigns && stats.pausedCampaigns.length
            ? 'Paused campaigns: ' + stats.pausedCampaigns.join(', ') : 'No campaign is paused.';
        fill('#reasons', stats.topFailureReasons.map(r => row(el('td', {class: 'number'}, r.count),
            el('td', {class: 'error-text'}, r.reason))), 'no failures');
        fill('#newest', newest.mails.map(mailRow(false)), 'no mail');
        fillAccounts(stats.accounts || []);
        await showCharts(stats);
        loaded();
    } catch (e) {
        fail('Could not read the queue: ' + e.message);
    }
    again('overview', showOverview, REFRESH_MS);
}

/**
 * How an account logs in on this server: password, Amazon SES (each request signed), or its OAuth2 grant, token
 * expiry and last token error.
 */
function login(l) {
    if (l && l.kind === 'aws-sigv4') {
        return 'Amazon SES API (signed requests)';
    }
    if (!l || l.kind !== 'oauth2') {
        return 'password';
    }
    const token = l.tokenExpiresAt ? `token until ${time(l.tokenExpiresAt)}` : 'no token';
    return `OAuth2 ${l.grant}, ${token}, ${l.renewals} renewals` + (l.lastError ? `; last error ${time(l.lastErrorAt)}: ${l.lastError}` : '');
}

/** What an account sends through, in front of its login: nothing for SMTP. */
function relay(r) {
    return r === 'graph' ? 'Microsoft Graph sendMail; ' : '';
}

function fillAccounts(accounts) {
    const select = document.getElementById('chart-account');
    const names = accounts.map(a => a.account);
    const have = Array.from(select.options).slice(1).map(o => o.value);
    if (names.join() !== have.join()) {
        const chosen = select.value;
        select.replaceChildren(el('option', {value: ''}, 'all accounts'), ...names.map(n => el('option', {value: n}, n)));
        select.value = names.includes(chosen) ? chosen : '';
    }
}

async function showCharts(stats) {
    const range = document.getElementById('chart-range').value;
    const account = document.getElementById('chart-account').value;
    const series = await optional('admin/statistics/series?range=' + range
        + (account ? '&account=' + encodeURIComponent(account) : ''));
    const note = document.getElementById('chart-note');
    let buckets;
    let unit;
    if (series) {
        buckets = series.buckets;
        unit = series.bucketSeconds >= 3600 ? 'hour' : 'minute';
        note.hidden = true;
    } else {
        // Until the server has the series: the statistics' 24 hours, sent and failed only, every account.
        buckets = stats.hours.map(h => ({start: h.start, sent: h.sent, failed: h.failed}));
        unit = 'hour';
        note.textContent = 'This server has no /api/admin/statistics/series yet: the last 24 hours, all accounts,'
            + ' sent and failed only.';
        note.hidden = false;
    }
    const whose = account ? ' (account ' + account + ')' : '';
    const charts = document.getElementById('charts');
    charts.replaceChildren(
        chart('Mails per ' + unit + whose, buckets, [
            {key: 'sent', label: 'sent', className: 'sent'},
            {key: 'failed', label: 'failed', className: 'failed'},
            {key: 'deferred', label: 'deferred', className: 'deferred'}], 'bars'),
        chart('Queue depth (QUEUED) at each ' + unit + whose, buckets, [
            {key: 'queued', label: 'queued', className: 'queued'}], 'line'));
    fill('#chart-table', buckets.slice().reverse().map(b => row(time(b.start),
        el('td', {class: 'number'}, b.sent ?? ''), el('td', {class: 'number'}, b.failed ?? ''),
        el('td', {class: 'number'}, b.deferred ?? ''), el('td', {class: 'number'}, b.queued ?? ''))));
}

function svg(tag, attributes, text) {
    const element = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) {
        element.setAttribute(name, String(value));
    }
    if (text !== undefined) {
        element.textContent = text;
    }
    return element;
}

/** A bar chart (stacked) or a line chart of the buckets, with a title and a text summary for screen readers. */
function chart(title, buckets, series, kind) {
    const present = series.filter(s => buckets.some(b => typeof b[s.key] === 'number'));
    const figure = el('figure', {class: 'chart'});
    figure.append(el('figcaption', {}, title));
    if (present.length === 0 || buckets.length === 0) {
        figure.append(el('p', {class: 'note'}, 'No numbers for this chart.'));
        return figure;
    }
    const width = 720;
    const height = 200;
    const left = 44;
    const bottom = 22;
    const top = 8;
    const plotWidth = width - left - 8;
    const plotHeight = height - top - bottom;
    const total = b => present.reduce((sum, s) => sum + (b[s.key] || 0), 0);
    const most = Math.max(1, ...buckets.map(b => kind === 'bars' ? total(b) : Math.max(...present.map(s => b[s.key] || 0))));
    const ceiling = niceCeiling(most);
    const id = 'chart-' + Math.random().toString(36).slice(2);
    const sums = present.map(s => s.label + ' ' + buckets.reduce((n, b) => n + (b[s.key] || 0), 0)).join(', ');
    const image = svg('svg', {viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': id + '-t ' + id + '-d',
        class: kind});
    image.append(svg('title', {id: id + '-t'}, title),
        svg('desc', {id: id + '-d'}, `From ${time(buckets[0].start)} to ${time(buckets[buckets.length - 1].start)} UTC,`
            + ` ${buckets.length} buckets; in all: ${sums}; the highest bucket ${most}.`));
    for (const fraction of ceiling % 2 === 0 ? [0, 0.5, 1] : [0, 1]) {
        const y = top + plotHeight * (1 - fraction);
        image.append(svg('line', {x1: left, x2: width - 8, y1: y, y2: y, class: 'grid'}),
            svg('text', {x: left - 4, y: y + 4, 'text-anchor': 'end', class: 'axis'}, String(Math.round(ceiling * fraction))));
    }
    const step = plotWidth / buckets.length;
    const yOf = n => top + plotHeight * (1 - n / ceiling);
    if (kind === 'bars') {
        buckets.forEach((b, i) => {
            let base = 0;
            for (const s of present) {
                const n = b[s.key] || 0;
                if (n > 0) {
                    image.append(svg('rect', {x: left + i * step + step * 0.1, width: Math.max(step * 0.8, 0.5),
                        y: yOf(base + n), height: yOf(base) - yOf(base + n), class: s.className}));
                }
                base += n;
            }
        });
    } else {
        for (const s of present) {
            const points = buckets.map((b, i) => `${left + i * step + step / 2},${yOf(b[s.key] || 0)}`).join(' ');
            image.append(svg('polyline', {points, class: 'line ' + s.className}));
        }
    }
    image.append(svg('text', {x: left, y: height - 6, class: 'axis'}, time(buckets[0].start)),
        svg('text', {x: width - 8, y: height - 6, 'text-anchor': 'end', class: 'axis'},
            time(buckets[buckets.length - 1].start)));
    figure.append(image);
    const legend = el('ul', {class: 'legend'});
    present.forEach(s => legend.append(el('li', {}, el('span', {class: 'swatch ' + s.className, 'aria-hidden': 'true'}), s.label)));
    figure.append(legend);
    return figure;
}

function niceCeiling(n) {
    const power = Math.pow(10, Math.floor(Math.log10(n)));
    for (const m of [1, 2, 5, 10]) {
        if (m * power >= n) {
            return m * power;
        }
    }
    return 10 * power;
}

// ---------------------------------------------------------------------------------------------- search

let found = null;

function mailRow(withAttempts) {
    return mail => {
        const tr = row(mailLink(mail), time(mail.createdAt), mail.from, (mail.to || []).join(', '), mail.subject,
            statusCell(mail.status), ...(withAttempts ? [el('td', {class: 'number'}, mail.attemptsRemaining ?? '—')] : []),
            el('td', {class: 'error-text'}, mail.lastError || ''));
        tr.id = (withAttempts ? 'result-' : 'mail-') + mail.id;
        return tr;
    };
}

/** The API's query of the URL's parameters: what the search sends and the URL holds are the same. */
function searchQuery(params) {
    const query = new URLSearchParams();
    for (const [name, value] of params) {
        if (value !== '' && (name === 'status' || TEXT_CRITERIA.includes(name) || ['page', 'size', 'sort'].includes(name))) {
            query.append(name, value);
        }
    }
    return query;
}

/** The search as the bulk actions' JSON filter; null when it has no criterion. */
function bulkFilter(params) {
    const filter = {};
    const statuses = params.getAll('status').flatMap(s => s.split(',')).filter(Boolean);
    if (statuses.length) {
        filter.statuses = statuses;
    }
    for (const name of TEXT_CRITERIA) {
        const value = params.get(name);
        if (value) {
            filter[name] = name === 'bounced' ? value === 'true' : value;
        }
    }
    return Object.keys(filter).length ? filter : null;
}

function formToParams(form) {
    const params = new URLSearchParams();
    form.querySelectorAll('input[name=status]:checked').forEach(box => params.append('status', box.value));
    for (const name of TEXT_CRITERIA) {
        let value = form.elements[name].value.trim();
        if (value && form.elements[name].type === 'datetime-local') {
            value = (value.length === 16 ? value + ':00' : value) + 'Z';
        }
        if (value) {
            params.set(name, value);
        }
    }
    if (form.elements.sort.value !== 'id,desc') {
        params.set('sort', form.elements.sort.value);
    }
    if (form.elements.size.value !== '50') {
        params.set('size', form.elements.size.value);
    }
    return params;
}

function paramsToForm(form, params) {
    const statuses = params.getAll('status').flatMap(s => s.split(','));
    form.querySelectorAll('input[name=status]').forEach(box => box.checked = statuses.includes(box.value));
    for (const name of TEXT_CRITERIA) {
        const value = params.get(name) || '';
        form.elements[name].value = form.elements[name].type === 'datetime-local' ? value.replace(/Z$/, '') : value;
    }
    form.elements.sort.value = params.get('sort') || 'id,desc';
    form.elements.size.value = params.get('size') || '50';
}

async function showSearch(params) {
    const form = document.getElementById('search-form');
    paramsToForm(form, params);
    document.getElementById('bulk-confirm').hidden = true;
    const summary = document.getElementById('search-summary');
    summary.textContent = 'Searching…';
    const mine = generation;
    try {
        const page = await api('admin/mails?' + searchQuery(params));
        if (mine !== generation) {
            return;
        }
        found = {params, page};
        fill('#results', page.mails.map(mailRow(true)), 'no mail matches');
        const first = page.page * page.size;
        summary.textContent = page.total === 0 ? 'No mail matches.'
            : `Mails ${first + 1} to ${first + page.mails.length} of ${page.total}.`;
        document.getElementById('page-of').textContent = `page ${page.page + 1} of ${Math.max(1, Math.ceil(page.total / page.size))}`;
        document.getElementById('page-previous').disabled = page.page === 0;
        document.getElementById('page-next').disabled = first + page.mails.length >= page.total;
        loaded();
    } catch (e) {
        if (mine !== generation) {
            return;
        }
        summary.textContent = '';
        fill('#results', [], 'no result');
        fail('Search: ' + e.message);
    }
}

function turnPage(by) {
    if (!found) {
        return;
    }
    const params = new URLSearchParams(found.params);
    params.set('page', String(Math.max(0, found.page.page + by)));
    go('#/mails?' + params);
}

let pendingBulk = null;

function askBulk(action) {
    if (!found) {
        return;
    }
    const filter = bulkFilter(found.params);
    if (!filter) {
        fail('Narrow the search first: an action on every mail of the queue is refused.');
        return;
    }
    const which = {requeue: 'those FAILED, EXPIRED, HELD or CANCELLED', cancel: 'those QUEUED or HELD',
        delete: 'all but those being sent'}[action];
    pendingBulk = {action, filter};
    document.getElementById('bulk-question').textContent =
        `${action[0].toUpperCase() + action.slice(1)} the ${found.page.total} mails this search finds (${which})?`;
    document.getElementById('bulk-confirm').hidden = false;
    document.getElementById('bulk-yes').focus();
}

async function doBulk(button) {
    const {action, filter} = pendingBulk;
    document.getElementById('bulk-confirm').hidden = true;
    await act(button, action[0].toUpperCase() + action.slice(1), async () => {
        const answer = await api('admin/mails/' + action, 'POST', filter);
        return `${action[0].toUpperCase() + action.slice(1)}: ${answer.changed} mails changed.`;
    });
    if (found) {
        const message = document.getElementById('notice').textContent;
        await showSearch(found.params);
        say(message);
    }
}

// ---------------------------------------------------------------------------------------------- one mail

async function showMail(id) {
    if (!document.getElementById('mail-title').textContent.startsWith('Mail ' + id + ':')) {
        document.getElementById('mail-title').textContent = 'Mail ' + id;
    }
    const mine = generation;
    try {
        let mail = await optional('admin/mails/' + id);
        const full = mail !== null;
        if (!full) {
            mail = await api('mails/' + id); // a server without the admin view: no bodies, no attachment links
        }
        const [attempts, events] = await Promise.all([api('admin/mails/' + id + '/attempts'),
            api((full ? 'admin/mails/' : 'mails/') + id + '/events')]);
        if (mine !== generation) {
            return;
        }
        fillMail(mail, attempts, events, full);
        loaded();
        if (UNSETTLED.includes(mail.status)) {
            // soon while it is due or being sent, at the overview's pace while it waits for later
            const due = mail.status === 'SENDING' || !mail.notBefore || Date.parse(mail.notBefore) <= Date.now();
            again('mail', () => showMail(id), due ? DETAIL_REFRESH_MS : REFRESH_MS);
        }
    } catch (e) {
        fail('Mail ' + id + ': ' + e.message);
    }
}

function fillMail(mail, attempts, events, full) {
    document.getElementById('mail-title').textContent = 'Mail ' + mail.id + ': ' + (mail.subject || '(no subject)');
    const status = document.getElementById('mail-status');
    if (!status || status.textContent !== mail.status) {
        fillActions(mail);
    }
    const fields = [['status', el('span', {id: 'mail-status', class: 'status-' + mail.status}, mail.status)],
        ['from', mail.fromName ? mail.fromName + ' <' + mail.from + '>' : mail.from], ['reply to', mail.replyTo],
        ['to', (mail.to || []).join(', ')], ['cc', (mail.cc || []).join(', ')],
        ['bcc', (mail.bcc || []).join(', ')], ['subject', mail.subject], ['message id', mail.messageId],
        ['account', mail.account], ['priority', mail.priority], ['attempts left', mail.attemptsRemaining],
        ['last error', mail.lastError], ['enqueued by', mail.enqueuedBy], ['campaign', mail.campaign],
        ['tags', (mail.tags || []).join(', ')], ['reference', mail.reference], ['unsubscribe list', mail.unsubscribeList],
        ['copy of', mail.copyOf ? el('a', {href: '#/mails/' + mail.copyOf}, String(mail.copyOf)) : null],
        ...Object.entries(mail.headers || {}).map(([name, value]) => [name + ':', value])];
    definitions('mail-fields', fields);
    const first = attempts.length ? attempts[0].startedAt : null;
    const firstAttempt = mail.firstAttemptAt || first;
    definitions('mail-timings', [['queued', time(mail.createdAt)],
        ['due', time(mail.notBefore)],
        ['claimed (last)', time(mail.claimedAt)],
        ['first attempt', firstAttempt && time(firstAttempt) + between(mail.createdAt, firstAttempt)],
        ['last attempt', time(mail.lastAttemptAt)],
        ['sent', mail.sentAt && time(mail.sentAt) + between(mail.createdAt, mail.sentAt)],
        ['expires', time(mail.expiresAt)],
        ['content removed', time(mail.contentRemovedAt)]]);
    const recipients = mail.recipientOutcomes
        || (mail.recipients || []).map(r => Object.assign({field: ''}, r)); // a server without the admin view
    fill('#mail-recipients', recipients.map(r => row(r.field || '', r.name ? r.name + ' <' + r.address + '>' : r.address,
        statusCell(r.status), r.replyCode ?? '', r.enhancedStatus || '', el('td', {class: 'error-text'}, r.replyText || ''),
        time(r.updatedAt))), 'no recipients');
    fill('#mail-attempts', attempts.map(a => row(time(a.startedAt), time(a.finishedAt), statusCell(a.outcome),
        a.account || '', a.smtpReplyCode ?? '', a.enhancedStatus || '',
        el('td', {class: 'error-text'}, a.smtpReplyText || a.error || ''), a.serverInstance || '')), 'no attempt yet');
    fill('#mail-events', events.map(e => row(time(e.occurredAt), e.type, e.recipient || '',
        el('td', {class: 'error-text'}, e.reply ? [e.reply.code, e.reply.enhancedStatus, e.reply.text].filter(Boolean).join(' ') : ''))),
        'no events');
    const attachments = document.getElementById('mail-attachments');
    attachments.replaceChildren(...(mail.attachments || []).map((a, i) => el('li', {},
        full ? el('a', {href: '../api/admin/mails/' + mail.id + '/attachments/' + i, download: a.filename || ''},
            a.filename || 'attachment ' + (i + 1)) : a.filename,
        ` (${a.contentType || 'unknown type'}, ${size(a.sizeBytes)})`)));
    if (!attachments.children.length) {
        attachments.append(el('li', {}, 'none'));
    }
    const note = document.getElementById('body-note');
    note.hidden = full;
    note.textContent = full ? '' : 'This server has no /api/admin/mails/{id} yet: bodies and attachment downloads are not shown.';
    document.getElementById('mail-text').textContent = mail.text ?? (mail.contentRemovedAt
        ? '(bodies and attachments removed by retention at ' + time(mail.contentRemovedAt) + ')'
        : full ? '(no text body)' : '');
    const frame = document.getElementById('mail-html');
    const html = mail.html || '';
    if (frame.srcdoc !== html) {
        frame.srcdoc = html; // sandbox="": no scripts, no forms, no top navigation, an opaque origin
    }
    frame.hidden = !html;
}

function size(bytes) {
    if (bytes === null || bytes === undefined) {
        return 'size unknown';
    }
    return bytes < 1024 ? bytes + ' bytes' : bytes < 1048576 ? (bytes / 1024).toFixed(1) + ' KiB'
        : (bytes / 1048576).toFixed(1) + ' MiB';
}

function definitions(id, pairs) {
    const list = document.getElementById(id);
    list.replaceChildren();
    for (const [term, value] of pairs) {
        if (value === null || value === undefined || value === '') {
            continue;
        }
        list.append(el('dt', {}, term), el('dd', {}, value instanceof Node ? value : String(value)));
    }
}

function fillActions(mail) {
    const actions = document.getElementById('mail-actions');
    actions.replaceChildren();
    const button = (label, className, work) => {
        const b = el('button', {type: 'button', class: className}, label);
        b.addEventListener('click', () => act(b, label + ' mail ' + mail.id, work));
        actions.append(b);
    };
    if (REQUEUEABLE.includes(mail.status) && !mail.contentRemovedAt) { // without content it would go out empty
        button('Requeue', 'requeue', async () => {
            await api('admin/mails/' + mail.id + '/requeue', 'POST');
            await showMail(mail.id);
            return 'Mail ' + mail.id + ' is queued again.';
        });
    }
    if (CANCELLABLE.includes(mail.status)) {
        button('Cancel', 'cancel', async () => {
            await api('admin/mails/' + mail.id + '/cancel', 'POST');
            await showMail(mail.id);
            return 'Mail ' + mail.id + ' is cancelled.';
        });
    }
    if (mail.status !== 'SENDING') {
        button('Delete…', 'delete danger', async () => {
            if (!confirm('Delete mail ' + mail.id + ' and its attempt log for good?')) {
                return 'Nothing deleted.';
            }
            await api('admin/mails/' + mail.id, 'DELETE');
            go('#/mails');
            return 'Mail ' + mail.id + ' is deleted.';
        });
    }
}

// ---------------------------------------------------------------------------------------------- DKIM

async function showDkim() {
    const mine = generation;
    try {
        const keys = await api('admin/dkim');
        if (mine !== generation) {
            return;
        }
        fill('#dkim-keys', keys.map(k => row(k.domain, k.selector, k.dnsName,
            el('td', {class: 'record'}, k.dnsRecord || ''),
            k.problem ? el('td', {class: 'error-text'}, k.problem) : k.bits + ' bits')), 'no key: mail is sent unsigned');
        loaded();
    } catch (e) {
        fail('DKIM keys: ' + e.message);
    }
}

// ---------------------------------------------------------------------------------------------- templates

let templates = [];

async function showTemplates() {
    const mine = generation;
    try {
        const list = await api('admin/templates');
        if (mine !== generation) {
            return;
        }
        templates = list;
        fill('#templates', list.map(t => row(t.name, String(t.version), t.locales.map(l => l.locale).join(', '),
            t.defaultLocale, time(t.createdAt), t.createdBy || '',
            el('td', {}, el('button', {type: 'button', class: 'preview', 'data-name': t.name}, 'Preview')))),
            'no template yet');
        loaded();
    } catch (e) {
        fail('Templates: ' + e.message);
    }
}

/** Shows a template's source per locale, as text. */
function showSource(name) {
    const template = templates.find(t => t.name === name);
    document.getElementById('template-source').textContent = !template ? '' : template.locales.map(l =>
        `[${l.locale}${l.locale === template.defaultLocale ? ', default' : ''}]\nsubject: ${l.subject ?? ''}\n`
        + (l.text != null ? `text:\n${l.text}\n` : '') + (l.html != null ? `html:\n${l.html}\n` : '')).join('\n');
}

async function previewTemplate(form) {
    const f = form.elements;
    let variables;
    try {
        variables = JSON.parse(f.variables.value || '{}');
    } catch (e) {
        throw new Error('Variables: not JSON (' + e.message + ')');
    }
    const body = {variables};
    if (f.locale.value.trim()) {
        body.locale = f.locale.value.trim();
    }
    const name = f.name.value.trim();
    showSource(name);
    const rendered = await api('admin/templates/' + encodeURIComponent(name) + '/preview', 'POST', body);
    document.getElementById('preview-locale').textContent = rendered.locale;
    document.getElementById('preview-subject').textContent = rendered.subject ?? '(none)';
    document.getElementById('preview-text').textContent = rendered.text ?? '(no text part: derived from the HTML when sent)';
    const frame = document.getElementById('preview-html');
    frame.srcdoc = rendered.html || ''; // sandbox="": no scripts, no forms, no top navigation, an opaque origin
    frame.hidden = !rendered.html;
    document.getElementById('preview-result').hidden = false;
    return 'Rendered ' + name + ' in ' + rendered.locale + '; nothing was queued.';
}

// ---------------------------------------------------------------------------------------------- suppressions

async function showSuppressions(params) {
    const address = params.get('address') || '';
    const page = Number(params.get('page') || 0);
    document.getElementById('suppression-address').value = address;
    const mine = generation;
    try {
        const entries = await api('admin/suppressions?size=50&page=' + page
            + (address ? '&address=' + encodeURIComponent(address) : ''));
        if (mine !== generation) {
            return;
        }
        fill('#suppressions', entries.map(s => {
            const remove = el('button', {type: 'button', class: 'remove'}, 'Remove');
            remove.setAttribute('aria-label', 'Remove ' + s.address + (s.list ? ' from list ' + s.list : ''));
            remove.addEventListener('click', () => act(remove, 'Remove ' + s.address, async () => {
                await api('admin/suppressions/' + encodeURIComponent(s.address)
                    + (s.list ? '?list=' + encodeURIComponent(s.list) : ''), 'DELETE');
                await showSuppressions(route().params);
                return s.address + ' is no longer suppressed' + (s.list ? ' for list ' + s.list : '') + '.';
            }));
            return row(s.address, s.list || 'all mail', s.reason, el('td', {class: 'error-text'}, s.detail || ''),
                s.mailId ? el('a', {href: '#/mails/' + s.mailId}, String(s.mailId)) : '', time(s.createdAt), remove);
        }), 'no entry');
        document.getElementById('suppressions-page').textContent = 'page ' + (page + 1);
        document.getElementById('suppressions-previous').disabled = page === 0;
        document.getElementById('suppressions-next').disabled = entries.length < 50;
        loaded();
    } catch (e) {
        fail('Suppression list: ' + e.message);
    }
}

function suppressionsPage(by) {
    const params = new URLSearchParams(route().params);
    params.set('page', String(Math.max(0, Number(params.get('page') || 0) + by)));
    go('#/suppressions?' + params);
}

// ---------------------------------------------------------------------------------------------- pause and resume

let dispatch = null;

async function showDispatch() {
    const mine = generation;
    try {
        await refreshBanner();
        if (mine !== generation) {
            return;
        }
        const queueState = document.getElementById('queue-state');
        const toggle = document.getElementById('queue-toggle');
        if (!dispatch) {
            queueState.textContent = 'This server has no /api/admin/dispatch yet: the queue and its accounts cannot'
                + ' be paused from here.';
            toggle.hidden = true;
            fill('#dispatch-accounts', [], 'not available');
        } else {
            queueState.textContent = dispatch.paused ? `Paused since ${time(dispatch.pausedAt)} by ${dispatch.pausedBy || 'someone'}.`
                : 'Dispatching.';
            toggle.hidden = false;
            toggle.textContent = dispatch.paused ? 'Resume the whole queue' : 'Pause the whole queue';
            toggle.dataset.action = dispatch.paused ? 'resume' : 'pause';
            fill('#dispatch-accounts', dispatch.accounts.map(a => {
                const b = el('button', {type: 'button', class: a.paused ? 'resume' : 'pause',
                    id: 'account-' + a.name}, (a.paused ? 'Resume ' : 'Pause ') + a.name);
                b.addEventListener('click', () => act(b, (a.paused ? 'Resume' : 'Pause') + ' account ' + a.name, async () => {
                    dispatch = await api('admin/accounts/' + encodeURIComponent(a.name) + '/' + (a.paused ? 'resume' : 'pause'), 'POST');
                    await showDispatch();
                    return 'Account ' + a.name + (a.paused ? ' dispatches again.' : ' is paused: its mail waits QUEUED.');
                }));
                const name = a.name + (a.default ? ' (default)' : '') + (a.configured === false ? ' (not configured here)' : '');
                return row(name, statusCell(a.paused ? 'PAUSED' : 'DISPATCHING'), time(a.pausedAt), a.pausedBy || '',
                    relay(a.relay) + login(a.login), b);
            }), 'no accounts');
        }
        const campaigns = (statistics && statistics.pausedCampaigns) || [];
        const list = document.getElementById('dispatch-campaigns');
        list.replaceChildren(...campaigns.map(name => {
            const b = el('button', {type: 'button'}, 'Resume ' + name);
            b.addEventListener('click', () => act(b, 'Resume campaign ' + name, async () => {
                await api('admin/campaigns/' + encodeURIComponent(name) + '/resume', 'POST');
                await showDispatch();
                return 'Campaign ' + name + ' is running again.';
            }));
            return el('li', {}, 'Paused: ' + name + ' ', b);
        }));
        if (!campaigns.length) {
            list.append(el('li', {}, 'No campaign is paused.'));
        }
        loaded();
    } catch (e) {
        fail('Pause and resume: ' + e.message);
    }
    again('dispatch', showDispatch, REFRESH_MS);
}

/**
 * The banner on every page: what is paused. Reads the dispatch state (when the server has it) and the
 * statistics; the loop takes statistics up to REFRESH_MS old (the overview's), an action's refresh fresh ones.
 */
async function refreshBanner(statisticsMaxAgeMs = 0) {
    const [state, stats] = await Promise.all([optional('admin/dispatch'), readStatistics(statisticsMaxAgeMs)]);
    dispatch = state;
    statistics = stats;
    const parts = [];
    if (state && state.paused) {
        parts.push(`The whole queue is paused (since ${time(state.pausedAt)}, by ${state.pausedBy || 'someone'}).`);
    } else if (!state && stats.dispatchPaused) {
        parts.push('The whole queue is paused.');
    }
    const accounts = state ? state.accounts.filter(a => a.paused).map(a => a.name) : (stats.pausedAccounts || []);
    if (accounts.length) {
        parts.push('Paused accounts: ' + accounts.join(', ') + '.');
    }
    if (stats.pausedCampaigns && stats.pausedCampaigns.length) {
        parts.push('Paused campaigns: ' + stats.pausedCampaigns.join(', ') + '.');
    }
    const banner = document.getElementById('paused-banner');
    const text = parts.join(' ');
    if (banner.dataset.text !== text) { // rebuilt only when it changes: a keyboard user's focus stays on its link
        banner.dataset.text = text;
        banner.replaceChildren();
        if (text) {
            banner.append(text + ' ', el('a', {href: '#/dispatch'}, 'Pause and resume'));
        }
        banner.hidden = !text;
    }
}

async function bannerLoop() {
    try {
        await refreshBanner(REFRESH_MS);
    } catch (e) {
        // the page's own reads say what is wrong
    }
    setTimeout(bannerLoop, REFRESH_MS);
}

// ---------------------------------------------------------------------------------------------- wiring

function wire() {
    const boxes = document.getElementById('status-boxes');
    boxes.replaceChildren(...STATUSES.map(s => el('label', {class: 'check'},
        el('input', {type: 'checkbox', name: 'status', value: s}), ' ' + s)));
    const form = document.getElementById('search-form');
    form.addEventListener('submit', event => {
        event.preventDefault();
        const params = formToParams(form);
        go('#/mails' + (params.toString() ? '?' + params : ''));
    });
    document.getElementById('search-clear').addEventListener('click', () => go('#/mails'));
    document.getElementById('page-previous').addEventListener('click', () => turnPage(-1));
    document.getElementById('page-next').addEventListener('click', () => turnPage(1));
    document.querySelectorAll('button[data-bulk]').forEach(b => b.addEventListener('click', () => askBulk(b.dataset.bulk)));
    document.getElementById('bulk-yes').addEventListener('click', event => doBulk(event.target));
    document.getElementById('bulk-no').addEventListener('click', () => {
        document.getElementById('bulk-confirm').hidden = true;
        say('Nothing changed.');
    });

    document.getElementById('chart-range').addEventListener('change', () => statistics && showCharts(statistics));
    document.getElementById('chart-account').addEventListener('change', () => statistics && showCharts(statistics));
    const toggle = document.getElementById('chart-table-toggle');
    toggle.addEventListener('click', () => {
        const table = document.getElementById('chart-table');
        table.hidden = !table.hidden;
        toggle.setAttribute('aria-pressed', String(!table.hidden));
        toggle.textContent = table.hidden ? 'Show as table' : 'Hide the table';
    });

    document.getElementById('suppression-search').addEventListener('submit', event => {
        event.preventDefault();
        const address = event.target.elements.address.value.trim();
        go('#/suppressions' + (address ? '?address=' + encodeURIComponent(address) : ''));
    });
    document.getElementById('suppression-add').addEventListener('submit', event => {
        event.preventDefault();
        const f = event.target.elements;
        const address = f.address.value.trim();
        const query = new URLSearchParams();
        if (f.list.value.trim()) {
            query.set('list', f.list.value.trim());
        }
        if (f.note.value.trim()) {
            query.set('note', f.note.value.trim());
        }
        act(event.submitter, 'Suppress ' + address, async () => {
            await api('admin/suppressions/' + encodeURIComponent(address) + (query.toString() ? '?' + query : ''), 'PUT');
            event.target.reset();
            await showSuppressions(route().params);
            return address + ' is suppressed.';
        });
    });
    document.getElementById('suppressions-previous').addEventListener('click', () => suppressionsPage(-1));
    document.getElementById('suppressions-next').addEventListener('click', () => suppressionsPage(1));

    document.getElementById('queue-toggle').addEventListener('click', event => {
        const action = event.target.dataset.action;
        act(event.target, action === 'pause' ? 'Pause the queue' : 'Resume the queue', async () => {
            dispatch = await api('admin/dispatch/' + action, 'POST');
            await showDispatch();
            return action === 'pause' ? 'The whole queue is paused: all mail waits QUEUED.' : 'The queue dispatches again.';
        });
    });
    document.getElementById('campaign-form').addEventListener('submit', event => {
        event.preventDefault();
        const name = event.target.elements.name.value.trim();
        const action = event.submitter ? event.submitter.dataset.campaign : 'pause';
        act(event.submitter, action[0].toUpperCase() + action.slice(1) + ' campaign ' + name, async () => {
            const answer = await api('admin/campaigns/' + encodeURIComponent(name) + '/' + action, 'POST');
            await showDispatch();
            return `Campaign ${answer.name} is ${answer.paused ? 'paused' : 'running'}.`;
        });
    });

    document.getElementById('templates').addEventListener('click', event => {
        const name = event.target.dataset && event.target.dataset.name;
        if (name) {
            const form = document.getElementById('template-preview');
            form.elements.name.value = name;
            showSource(name);
            form.elements.variables.focus();
        }
    });
    document.getElementById('template-preview').addEventListener('submit', event => {
        event.preventDefault();
        act(event.submitter, 'Preview', () => previewTemplate(event.target));
    });

    window.addEventListener('popstate', render);
    window.addEventListener('hashchange', render);
}

wire();
render();
bannerLoop();
