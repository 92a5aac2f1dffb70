package dev.mailqueue.mail.control;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.MailView;
import dev.mailqueue.api.RecipientView;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
import dev.mailqueue.mail.entity.MailRecipient;
import dev.mailqueue.mail.entity.Utc;

import java.util.ArrayList;
import java.util.List;

/** Turns rows into the views callers see. */
public final class MailViews {

    private MailViews() {
    }

    /**
     * @param mail     the mail row
     * @param attempts its attempt log, oldest first
     * @return the caller's view of both
     */
    public static MailView of(MailMessage mail, List<MailAttempt> attempts) {
        return of(mail, attempts, List.of());
    }

    /**
     * @param mail       the mail row
     * @param attempts   its attempt log, oldest first
     * @param recipients its per-recipient rows, if any
     * @return the caller's view of all three
     */
    public static MailView of(MailMessage mail, List<MailAttempt> attempts, List<MailRecipient> recipients) {
        MailView view = new MailView();
        view.setId(mail.getId());
        view.setMessageId(mail.getMessageId());
        view.setStatus(mail.getStatus());
        view.setPriority(mail.getPriority());
        view.setFrom(mail.getFromAddress());
        view.setTo(new ArrayList<>(mail.getTo()));
        view.setCc(new ArrayList<>(mail.getCc()));
        view.setBcc(new ArrayList<>(mail.getBcc()));
        view.setSubject(mail.getSubject());
        view.setCreatedAt(Utc.toInstant(mail.getCreatedAt()));
        view.setNotBefore(Utc.toInstant(mail.getNotBefore()));
        view.setAttemptsRemaining(mail.getAttemptsRemaining());
        view.setLastAttemptAt(Utc.toInstant(mail.getLastAttemptAt()));
        view.setSentAt(Utc.toInstant(mail.getSentAt()));
        view.setLastError(mail.getLastError());
        view.setAccount(mail.getSmtpAccount());
        view.setEnqueuedBy(mail.getEnqueuedBy());
        view.setAttempts(attempts.stream().map(MailViews::of).collect(ArrayList::new, List::add, List::addAll));
        view.setExpiresAt(Utc.toInstant(mail.getExpiresAt()));
        view.setCopyOf(mail.getCopyOf());
        view.setRecipients(recipients.stream().map(r -> new RecipientView(r.getAddress(), r.getStatus().name(),
                r.getReplyCode(), r.getEnhancedStatus(), r.getReplyText())).toList());
        return view;
    }

    private static AttemptView of(MailAttempt a) {
        AttemptView view = new AttemptView(Utc.toInstant(a.getStartedAt()), Utc.toInstant(a.getFinishedAt()),
                a.getServerInstance(), a.getOutcome().name(), a.getSmtpReplyCode(), a.getSmtpReplyText(),
                a.getError());
        view.setEnhancedStatus(a.getEnhancedStatus());
        view.setAccount(a.getSmtpAccount());
        return view;
    }
}
