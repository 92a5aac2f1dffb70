package dev.mailqueue.admin.boundary;

import dev.mailqueue.server.control.ServerInstance;
import dev.mailqueue.api.FieldError;
import dev.mailqueue.api.InvalidFilterException;
import dev.mailqueue.api.MailLimits;
import dev.mailqueue.api.MailStatus;
import dev.mailqueue.api.Roles;
import dev.mailqueue.queue.control.CampaignStore;
import jakarta.annotation.Resource;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.SessionContext;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * A campaign's mail as one: its counts per status, pause and resume (shared by every server: the claim
 * leaves a paused campaign's QUEUED mail alone, no attempt spent), and cancel of everything still waiting
 * (QUEUED or HELD), each with a {@code cancelled} event. Role {@code mail-admin} ({@code mail-viewer} may
 * read a campaign's state); each action is logged with the operator's name.
 */
@Stateless
@DeclareRoles({Roles.SENDER, Roles.ADMIN, Roles.VIEWER})
@RolesAllowed(Roles.ADMIN)
public class Campaigns {

    private static final Logger LOG = Logger.getLogger(Campaigns.class.getName());

    @Inject
    CampaignStore store;

    @Resource
    SessionContext context;

    @Inject
    ServerInstance server;

    /**
     * A campaign as the admin API shows it.
     *
     * @param name      its name
     * @param paused    true when its mail waits
     * @param counts    its mails per status (statuses without mail left out)
     * @param cancelled mails the action cancelled, or null for other actions
     */
    public record CampaignState(String name, boolean paused, Map<MailStatus, Long> counts, Integer cancelled) {
    }

    /**
     * @param name a campaign
     * @return its state
     * @throws InvalidFilterException when the name is not a campaign name ({@link MailLimits#CAMPAIGN_NAME})
     */
    @RolesAllowed({Roles.ADMIN, Roles.VIEWER})
    public CampaignState state(String name) throws InvalidFilterException {
        check(name);
        return state(name, null);
    }

    /** Pauses the campaign. @return its state @throws InvalidFilterException for a bad name */
    public CampaignState pause(String name) throws InvalidFilterException {
        check(name);
        if (store.pause(name, caller(), Instant.now())) {
            LOG.info(() -> caller() + " paused campaign " + name);
        }
        return state(name, null);
    }

    /** Resumes the campaign. @return its state @throws InvalidFilterException for a bad name */
    public CampaignState resume(String name) throws InvalidFilterException {
        check(name);
        if (store.resume(name)) {
            LOG.info(() -> caller() + " resumed campaign " + name);
        }
        return state(name, null);
    }

    /**
     * Cancels every mail of the campaign still waiting, in this transaction.
     *
     * @return its state, with the number cancelled
     * @throws InvalidFilterException for a bad name
     */
    public CampaignState cancel(String name) throws InvalidFilterException {
        check(name);
        int cancelled = store.cancel(name, server.name(), "operator:" + caller());
        LOG.info(() -> caller() + " cancelled campaign " + name + ": " + cancelled + " mails");
        return state(name, cancelled);
    }

    private CampaignState state(String name, Integer cancelled) {
        return new CampaignState(name, store.paused().contains(name), store.counts(name), cancelled);
    }

    private static void check(String name) throws InvalidFilterException {
        if (name == null || !name.matches(MailLimits.CAMPAIGN_NAME)) {
            throw new InvalidFilterException(List.of(new FieldError("campaign",
                    "is not a campaign name (A-Z a-z 0-9 . _ -, 1 to 64 characters)")));
        }
    }

    private String caller() {
        return context.getCallerPrincipal().getName();
    }
}
