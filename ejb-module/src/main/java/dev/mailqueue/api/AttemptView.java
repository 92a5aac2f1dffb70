package dev.mailqueue.api;

import java.io.Serializable;
import java.time.Instant;

/**
 * One delivery attempt of a mail, from the attempt log: when, by which server, with what outcome and
 * which SMTP reply (RFC 5321 §4.2; absent when no reply came, e.g. the connection was refused).
 */
public class AttemptView implements Serializable {

    private static final long serialVersionUID = 1L;

    // Times are kept as ISO-8601 text: Liberty's ORB (Yoko) cannot marshal java.time types on Java 17
    // (java.time is not open to it), so the remote view would fail. The accessors speak Instant.
    private String startedAt;
    private String finishedAt;
    private String serverInstance;
    private String outcome;
    private Integer smtpReplyCode;
    private String smtpReplyText;
    private String error;
    private String enhancedStatus;
    private String account;

    /** For JSON-B. */
    public AttemptView() {
    }

    /**
     * @param startedAt      when the attempt began
     * @param finishedAt     when the SMTP server answered or the attempt gave up
     * @param serverInstance the server that made it
     * @param outcome        {@code SENT}, {@code FAILED} or {@code IN_DOUBT}
     * @param smtpReplyCode  three-digit reply code, or null
     * @param smtpReplyText  the server's reply text, or null
     * @param error          why it failed, or null
     */
    public AttemptView(Instant startedAt, Instant finishedAt, String serverInstance, String outcome,
                       Integer smtpReplyCode, String smtpReplyText, String error) {
        setStartedAt(startedAt);
        setFinishedAt(finishedAt);
        this.serverInstance = serverInstance;
        this.outcome = outcome;
        this.smtpReplyCode = smtpReplyCode;
        this.smtpReplyText = smtpReplyText;
        this.error = error;
    }

    public Instant getStartedAt() {
        return startedAt == null ? null : Instant.parse(startedAt);
    }

    public void setStartedAt(Instant startedAt) {
        this.startedAt = startedAt == null ? null : startedAt.toString();
    }

    public Instant getFinishedAt() {
        return finishedAt == null ? null : Instant.parse(finishedAt);
    }

    public void setFinishedAt(Instant finishedAt) {
        this.finishedAt = finishedAt == null ? null : finishedAt.toString();
    }

    public String getServerInstance() {
        return serverInstance;
    }

    public void setServerInstance(String serverInstance) {
        this.serverInstance = serverInstance;
    }

    /** @return {@code SENT} or {@code FAILED} */
    public String getOutcome() {
        return outcome;
    }

    public void setOutcome(String outcome) {
        this.outcome = outcome;
    }

    /** @return the three-digit SMTP reply code, or null when the server gave none */
    public Integer getSmtpReplyCode() {
        return smtpReplyCode;
    }

    public void setSmtpReplyCode(Integer smtpReplyCode) {
        this.smtpReplyCode = smtpReplyCode;
    }

    public String getSmtpReplyText() {
        return smtpReplyText;
    }

    public void setSmtpReplyText(String smtpReplyText) {
        this.smtpReplyText = smtpReplyText;
    }

    public String getError() {
        return error;
    }

    public void setError(String error) {
        this.error = error;
    }

    /** @return the RFC 3463 enhanced status code of the reply, e.g. {@code 5.1.1}, or null when none came */
    public String getEnhancedStatus() {
        return enhancedStatus;
    }

    public void setEnhancedStatus(String enhancedStatus) {
        this.enhancedStatus = enhancedStatus;
    }

    /** @return the SMTP account that sent the mail or made the last try (after failing over), or null */
    public String getAccount() {
        return account;
    }

    public void setAccount(String account) {
        this.account = account;
    }
}
