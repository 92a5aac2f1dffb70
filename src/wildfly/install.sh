#!/usr/bin/env bash
# Installs mailqueue on WildFly: unpacks the distribution, adds the modules the queue needs (EclipseLink,
# the JDBC driver), applies configure.cli and db-<database>.cli to standalone.xml offline, adds the users
# and puts the EAR into standalone/deployments. The Maven build (ear-module, profile wildfly) calls it;
# by hand:
#   src/wildfly/install.sh <wildfly-dist.tar.gz> <install dir> <derby|postgresql|mariadb> <jar dir> <mailqueue.ear> [more.cli ...]
# <jar dir> holds eclipselink.jar and the drivers (derby.jar, derbyshared.jar, derbytools.jar,
# postgresql.jar, mariadb-java-client.jar). Further CLI files (e.g. more SMTP accounts, as mail sessions
# java:/mail/<account>) are applied after the queue's own. Users come from the environment, as on Liberty:
# MAILQUEUE_ADMIN_USER/_PASSWORD (role mail-admin), MAILQUEUE_SENDER_USER/_PASSWORD (role mail-sender),
# MAILQUEUE_VIEWER_USER/_PASSWORD (role mail-viewer);
# a user whose password is unset is not added. WildFly's ApplicationRealm holds them, the role as a group
# of the same name (Liberty maps its groups to the roles in server.xml instead).
set -euo pipefail
dist=$1 target=$2 db=$3 jars=$4 ear=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$target"
mkdir -p "$target"
tar xzf "$dist" -C "$target" --strip-components=1
base=$target/modules/system/layers/base

# EclipseLink: WildFly's module org.eclipse.persistence holds only its integration (jipijapa); the
# EclipseLink jar joins it (WildFly's persistence guide, "Using EclipseLink").
cp "$jars/eclipselink.jar" "$base/org/eclipse/persistence/main/"
# EclipseLink itself needs a few JDK modules the integration does not (java.rmi for its remote cache classes).
sed -i -e 's|<resources>|<resources>\n        <resource-root path="eclipselink.jar"/>|' \
    -e 's|<dependencies>|<dependencies>\n        <module name="java.rmi"/>\n        <module name="java.sql"/>\n        <module name="java.xml"/>\n        <module name="java.desktop"/>\n        <module name="jdk.unsupported"/>|' \
    "$base/org/eclipse/persistence/main/module.xml"

# The JDBC driver as a module of its own.
module() { # name, jars...
    local name=$1; shift
    local dir=$target/modules/${name//.//}/main
    mkdir -p "$dir"
    local roots=""
    for jar in "$@"; do
        cp "$jars/$jar" "$dir/"
        roots+="        <resource-root path=\"$jar\"/>"$'\n'
    done
    cat > "$dir/module.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<module xmlns="urn:jboss:module:1.9" name="$name">
    <resources>
$roots    </resources>
    <dependencies>
        <module name="java.sql"/>
        <module name="java.naming"/>
        <module name="java.management"/>
        <module name="java.logging"/>
        <module name="java.security.jgss"/>
        <module name="java.xml"/>
        <module name="java.desktop"/>
        <module name="jakarta.transaction.api"/>
    </dependencies>
</module>
XML
}
case "$db" in
    derby) module org.apache.derby derby.jar derbyshared.jar derbytools.jar ;;
    postgresql) module org.postgresql postgresql.jar ;;
    mariadb) module org.mariadb.jdbc mariadb-java-client.jar ;;
    *) echo "unknown database $db (derby, postgresql, mariadb)" >&2; exit 2 ;;
esac

"$target/bin/jboss-cli.sh" --file="$here/configure.cli"
"$target/bin/jboss-cli.sh" --file="$here/db-$db.cli"
for more in "$@"; do
    if [ -n "$more" ]; then
        "$target/bin/jboss-cli.sh" --file="$more"
    fi
done

add_user() { # user, password, role (empty: a user with no role)
    if [ -n "$2" ]; then
        if [ -n "$3" ]; then
            "$target/bin/add-user.sh" -a -s -u "$1" -p "$2" -g "$3"
        else
            "$target/bin/add-user.sh" -a -s -u "$1" -p "$2"
        fi
    fi
}
add_user "${MAILQUEUE_ADMIN_USER:-admin}" "${MAILQUEUE_ADMIN_PASSWORD:-}" mail-admin
add_user "${MAILQUEUE_SENDER_USER:-sender}" "${MAILQUEUE_SENDER_PASSWORD:-}" mail-sender
add_user "${MAILQUEUE_VIEWER_USER:-viewer}" "${MAILQUEUE_VIEWER_PASSWORD:-}" mail-viewer
# More users: MAILQUEUE_MORE_USERS="name:password:role name2:password2:" (role mail-sender, mail-admin,
# mail-viewer or empty).
for entry in ${MAILQUEUE_MORE_USERS:-}; do
    IFS=: read -r name password role <<< "$entry"
    add_user "$name" "$password" "$role"
done

cp "$ear" "$target/standalone/deployments/mailqueue.ear"
echo "mailqueue installed in $target ($db); start it with $target/bin/standalone.sh"
