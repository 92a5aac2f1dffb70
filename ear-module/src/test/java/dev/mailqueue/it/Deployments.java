package dev.mailqueue.it;

import dev.mailqueue.it.apps.CallerServlet;
import dev.mailqueue.it.apps.EventSubscriber;
import dev.mailqueue.it.apps.EventsServlet;
import dev.mailqueue.it.apps.ProbeServlet;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import java.io.File;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import dev.mailqueue.it.apps.LegacyMailServlet;
import dev.mailqueue.transport.QueueTransport;

/**
 * What the integration tests deploy beside the queue: the helper applications probe and caller, which every test
 * class uses ({@link HelperApplications} puts them on the test server once per run), and those of single test
 * classes (deployed by Arquillian). (The queue's EAR is configured in the test server's server.xml and started
 * with it.)
 */
final class Deployments {

    /**
     * A web.xml with HTTP Basic login, so that a request's user is the identity of its EJB calls (Liberty
     * authenticates the credentials of a request to an unprotected servlet without it; WildFly only with a login
     * configuration).
     */
    private static final String BASIC_LOGIN = """
            <?xml version="1.0" encoding="UTF-8"?>
            <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0">
                <login-config>
                    <auth-method>BASIC</auth-method>
                </login-config>
            </web-app>
            """;

    private Deployments() {
    }

    /** @return probe.war: reads and arranges queue rows over JDBC */
    static WebArchive probe() {
        return ShrinkWrap.create(WebArchive.class, "probe.war").addClass(ProbeServlet.class);
    }

    /**
     * @return caller.war: another application that uses the remote EJB, with the client jar's classes, and
     *         HTTP Basic login, so that a request's user is the identity of its EJB calls (Liberty
     *         authenticates the credentials of a request to an unprotected servlet without it; WildFly only
     *         with a login configuration)
     */
    static WebArchive caller() {
        return ShrinkWrap.create(WebArchive.class, "caller.war")
                .addClass(CallerServlet.class)
                .addAsLibrary(clientJar())
                .addAsLibrary(jarOf(com.ibm.icu.text.IDNA.class)) // the client jar's one dependency beyond Jakarta EE
                .setWebXML(new StringAsset(BASIC_LOGIN));
    }

    /**
     * @return the EJB client jar as the build made it (ejb-module/target/mailqueue-ejb-client.jar), the one file a
     *         calling application gets, so that a class it needs and lacks fails the calling tests
     */
    static File clientJar() {
        File jar = new File(System.getProperty("it.ejb.client.jar", "../ejb-module/target/mailqueue-ejb-client.jar"));
        if (!jar.isFile()) {
            throw new IllegalStateException("the EJB client jar is not built: " + jar.getAbsolutePath());
        }
        return jar;
    }

    /** @return the jar a class was loaded from */
    private static File jarOf(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @return legacy.war: an application written for a relay ({@link LegacyMailServlet}) with the queue's Jakarta
     *         Mail transport in WEB-INF/lib (mailqueue-transport.jar, with its providers files) and the client jar's
     *         classes, and HTTP Basic login as {@link #caller()} has
     */
    static WebArchive legacy() {
        return ShrinkWrap.create(WebArchive.class, "legacy.war")
                .addClass(LegacyMailServlet.class)
                .addPackages(true, "dev.mailqueue.api")
                .addAsLibrary(transportJar())
                .setWebXML(new StringAsset(BASIC_LOGIN));
    }

    /**
     * @return the transport jar as the build made it (its classes folder in the reactor, else the jar Maven
     *         resolved): the providers files must be its own, and the test class path holds Angus Mail's of the same
     *         names
     */
    static JavaArchive transportJar() {
        try {
            File built = new File(QueueTransport.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (built.isFile()) {
                return ShrinkWrap.createFromZipFile(JavaArchive.class, built);
            }
            return ShrinkWrap.create(JavaArchive.class, "mailqueue-transport.jar")
                    .addPackage(QueueTransport.class.getPackage())
                    .addAsManifestResource(new File(built, "META-INF/javamail.providers"), "javamail.providers")
                    .addAsManifestResource(new File(built, "META-INF/services/jakarta.mail.Provider"),
                            "services/jakarta.mail.Provider");
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @return events-subscriber.war: another application with a message-driven bean on the delivery events'
     *         topic ({@link EventSubscriber}) and a servlet that tells what it received
     */
    static WebArchive eventSubscriber() {
        return ShrinkWrap.create(WebArchive.class, "events-subscriber.war").addClasses(EventSubscriber.class,
                EventsServlet.class);
    }
}
