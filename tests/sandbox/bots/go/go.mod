module arena/linebot

go 1.19
