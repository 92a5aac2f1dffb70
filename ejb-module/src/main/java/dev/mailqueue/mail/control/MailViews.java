package dev.mailqueue.mail.control;

import dev.mailqueue.api.AttemptView;
import dev.mailqueue.api.MailView;
import dev.mailqueue.mail.entity.MailAttempt;
import dev.mailqueue.mail.entity.MailMessage;
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
        view.setEnqueuedBy(mail.getEnqueuedBy());
        view.setAttempts(attempts.stream().map(MailViews::of).collect(ArrayList::new, List::add, List::addAll));
        return view;
    }

    private static AttemptView of(MailAttempt a) {
        return new AttemptView(Utc.toInstant(a.getStartedAt()), Utc.toInstant(a.getFinishedAt()),
                a.getServerInstance(), a.getOutcome().name(), a.getSmtpReplyCode(), a.getSmtpReplyText(),
                a.getError());
    }
}
