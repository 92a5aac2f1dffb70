# Helpers shared by the private test server scripts (postfix/postfix-instance.sh, dovecot/dovecot-instance.sh);
# sourced, not run. Each script defines its own die().

# Fails unless $1 is a TCP port number.
check_port() {
    [[ "$1" =~ ^[0-9]+$ ]] && (( $1 > 0 && $1 < 65536 )) || die "bad port: $1"
}

# True while the process runs (a zombie waiting to be reaped counts as gone).
is_alive() {
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [[ "$stat" != Z* ]]
}

# True while something accepts connections on 127.0.0.1:<port>.
port_open() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
