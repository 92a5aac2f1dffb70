/*
 * The operator's dashboard: reads GET /api/admin/statistics and GET /api/admin/mails (the same numbers
 * as the JSON endpoints) every 5 seconds and offers requeue and cancel on the newest mails. The page is
 * served under /admin/, which needs role mail-admin; the browser's HTTP Basic login covers the API calls.
 * All text from mails is put in with textContent, never as HTML.
 */
'use strict';

const REFRESH_MS = 5000;
const NEWEST = 25;
const REQUEUEABLE = ['FAILED', 'EXPIRED', 'HELD', 'CANCELLED'];
const CANCELLABLE = ['QUEUED', 'HELD'];

async function api(path, options) {
    const response = await fetch('../api/admin/' + path, Object.assign({
        credentials: 'same-origin',
        headers: {'Accept': 'application/json'}
    }, options));
    const body = response.status === 204 ? null : await response.json();
    if (!response.ok) {
        throw new Error((body && (body.detail || body.title)) || ('HTTP ' + response.status));
    }
    return body;
}

function cell(row, text, className) {
    const td = document.createElement('td');
    td.textContent = text === null || text === undefined ? '' : String(text);
    if (className) {
        td.className = className;
    }
    row.appendChild(td);
    return td;
}

function replaceRows(tableId, rows) {
    const body = document.querySelector('#' + tableId + ' tbody');
    body.replaceChildren(...rows);
}

function ageText(seconds) {
    if (seconds === null || seconds === undefined) {
        return 'none';
    }
    if (seconds < 120) {
        return seconds + ' s';
    }
    if (seconds < 7200) {
        return Math.round(seconds / 60) + ' min';
    }
    return Math.round(seconds / 3600) + ' h';
}

function showStatistics(stats) {
    document.getElementById('generated-at').textContent = stats.generatedAt;
    replaceRows('depth', Object.entries(stats.countsByStatus).map(([status, count]) => {
        const row = document.createElement('tr');
        cell(row, status, 'status-' + status);
        cell(row, count, 'number').id = 'count-' + status;
        return row;
    }));
    document.getElementById('oldest-queued').textContent = ageText(stats.oldestQueuedSeconds);

    const most = Math.max(1, ...stats.hours.map(h => h.sent + h.failed));
    replaceRows('throughput', stats.hours.slice().reverse().map(hour => {
        const row = document.createElement('tr');
        cell(row, hour.start.substring(0, 13).replace('T', ' ') + ':00');
        cell(row, hour.sent, 'number');
        cell(row, hour.failed, 'number');
        const bars = cell(row, '');
        for (const [kind, n] of [['sent', hour.sent], ['failed', hour.failed]]) {
            const bar = document.createElement('span');
            bar.className = 'bar ' + kind;
            bar.style.width = (12 * n / most) + 'rem';
            bars.appendChild(bar);
        }
        return row;
    }));

    replaceRows('reasons', stats.topFailureReasons.map(reason => {
        const row = document.createElement('tr');
        cell(row, reason.count, 'number');
        cell(row, reason.reason, 'error-text');
        return row;
    }));
}

function actionButton(label, className, mail, path) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.className = className;
    button.dataset.mailId = mail.id;
    button.addEventListener('click', async () => {
        button.disabled = true;
        try {
            await api('mails/' + mail.id + '/' + path, {method: 'POST'});
            showError(null);
        } catch (e) {
            showError(label + ' mail ' + mail.id + ': ' + e.message);
        }
        await refresh();
    });
    return button;
}

function showMails(page) {
    replaceRows('mails', page.mails.map(mail => {
        const row = document.createElement('tr');
        row.id = 'mail-' + mail.id;
        cell(row, mail.id, 'number');
        cell(row, mail.createdAt.substring(0, 19).replace('T', ' '));
        cell(row, mail.from);
        cell(row, mail.to.join(', '));
        cell(row, mail.subject);
        cell(row, mail.status, 'status status-' + mail.status);
        cell(row, mail.attemptsRemaining, 'number');
        cell(row, mail.lastError, 'error-text');
        const actions = cell(row, '');
        if (REQUEUEABLE.includes(mail.status)) {
            actions.appendChild(actionButton('Requeue', 'requeue', mail, 'requeue'));
        }
        if (CANCELLABLE.includes(mail.status)) {
            actions.appendChild(actionButton('Cancel', 'cancel', mail, 'cancel'));
        }
        return row;
    }));
}

function showError(message) {
    const error = document.getElementById('error');
    error.textContent = message || '';
    error.hidden = !message;
}

async function refresh() {
    try {
        const [stats, page] = await Promise.all([api('statistics'), api('mails?size=' + NEWEST + '&sort=id,desc')]);
        showStatistics(stats);
        showMails(page);
        document.body.dataset.loaded = 'true';
    } catch (e) {
        showError('Could not read the queue: ' + e.message);
    }
}

refresh();
setInterval(refresh, REFRESH_MS);
