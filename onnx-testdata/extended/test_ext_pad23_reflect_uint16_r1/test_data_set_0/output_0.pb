
ByJþµKu+	Kuþµî—Èî—þµKu