package dev.mailqueue.it;

import dev.mailqueue.it.apps.CallerServlet;
import dev.mailqueue.it.apps.ProbeServlet;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.File;

/** What the integration tests deploy: the real EAR as built, and the two helper applications. */
final class Deployments {

    private Deployments() {
    }

    /** @return mailqueue.ear exactly as the build produced it */
    static EnterpriseArchive queue() {
        return ShrinkWrap.createFromZipFile(EnterpriseArchive.class, new File(System.getProperty("it.ear")));
    }

    /** @return probe.war: reads and arranges queue rows over JDBC */
    static WebArchive probe() {
        return ShrinkWrap.create(WebArchive.class, "probe.war").addClass(ProbeServlet.class);
    }

    /** @return caller.war: another application that uses the remote EJB, with the client jar's classes */
    static WebArchive caller() {
        return ShrinkWrap.create(WebArchive.class, "caller.war")
                .addClass(CallerServlet.class)
                .addPackages(true, "dev.mailqueue.api");
    }
}
