package dev.mailqueue.it;

import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Puts the helper applications the test classes use ({@link Deployments#probe()}, {@link Deployments#caller()},
 * {@link Deployments#legacy()})
 * where the test server deploys them at its start, once per test run, before Arquillian starts that server:
 * Liberty's {@code dropins/} (Arquillian waits for them, {@code verifyApps} in arquillian.xml) or WildFly's
 * {@code standalone/deployments/} (deployed during its boot). Deployed by Arquillian instead, they were
 * undeployed and deployed again around every test class, about 2.5 s a class on Liberty.
 * Registered before {@code ArquillianExtension} on {@link QueueServerIT}, so its {@code beforeAll} runs
 * first.
 */
final class HelperApplications implements BeforeAllCallback {

    private static boolean exported;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        export();
    }

    private static synchronized void export() throws IOException {
        if (exported) {
            return;
        }
        Path directory = directory();
        Files.createDirectories(directory);
        for (WebArchive archive : List.of(Deployments.probe(), Deployments.caller(), Deployments.legacy())) {
            archive.as(ZipExporter.class).exportTo(directory.resolve(archive.getName()).toFile(), true);
        }
        exported = true;
    }

    /** @return the directory the test server deploys from at its start */
    private static Path directory() {
        String wildFly = System.getProperty("it.wildfly.home");
        if (wildFly != null) {
            return Path.of(wildFly, "standalone", "deployments");
        }
        return Path.of(System.getProperty("it.wlp.home"), "usr", "servers", QueueServerIT.SERVER_NAME, "dropins");
    }
}
