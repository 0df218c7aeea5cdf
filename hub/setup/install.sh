#!/bin/sh
# Make a Raspberry Pi OS machine a table hub (hub/setup/README.md).  Run from a checkout as root:
#   sudo sh hub/setup/install.sh
# It installs to /opt/paizhuo, creates the paizhuo user, the folders, the systemd unit, the udev
# rules and log rotation.  table.toml is yours to put in /etc/paizhuo (mode 0600, owner paizhuo).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
apt-get install -y -qq python3-venv systemd-timesyncd logrotate
id paizhuo >/dev/null 2>&1 || useradd --system --home /var/lib/paizhuo --groups dialout paizhuo
install -d -o paizhuo -g dialout -m 0750 /var/lib/paizhuo /var/log/paizhuo
install -d -o root -g paizhuo -m 0750 /etc/paizhuo
if [ "$repo" != /opt/paizhuo ]; then
    rm -rf /opt/paizhuo && cp -a "$repo" /opt/paizhuo
fi
python3 -m venv /opt/paizhuo/.venv
/opt/paizhuo/.venv/bin/pip install --quiet /opt/paizhuo
install -m 0644 "$here/paizhuo-hub.service" /etc/systemd/system/paizhuo-hub.service
install -m 0644 "$here/99-paizhuo-seats.rules" /etc/udev/rules.d/99-paizhuo-seats.rules
install -m 0644 "$here/paizhuo.logrotate" /etc/logrotate.d/paizhuo
systemctl enable systemd-timesyncd systemd-time-wait-sync
udevadm control --reload && udevadm trigger --subsystem-match=tty
systemctl daemon-reload
systemctl enable paizhuo-hub
echo "installed. Put table.toml in /etc/paizhuo/ (chown paizhuo, chmod 600), then:"
echo "  sudo -u paizhuo /opt/paizhuo/.venv/bin/paizhuo hub doctor --config /etc/paizhuo/table.toml"
echo "  sudo systemctl start paizhuo-hub"
