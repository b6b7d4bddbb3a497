"""Tables and what their cells may become: columns, files, hierarchies, cells, recodings, row types."""
