package dev.mailqueue.api;

/** The application's security roles; server configuration maps them to users or groups. */
public final class Roles {

    /** May enqueue mail (from the addresses its allow-list names) and read and cancel its own mails. */
    public static final String SENDER = "mail-sender";

    /** May do everything: any mail, the admin API and dashboard, any From address. */
    public static final String ADMIN = "mail-admin";

    /** May read what an administrator reads (the admin API's GETs, the console), and change nothing. */
    public static final String VIEWER = "mail-viewer";

    /**
     * The identity background work runs as ({@code @RunAs}): the dispatch timer starts batch jobs as it,
     * since Liberty's batch container refuses jobs to an unauthenticated caller. Grants nothing else.
     */
    public static final String DISPATCHER = "mail-dispatcher";

    private Roles() {
    }
}
